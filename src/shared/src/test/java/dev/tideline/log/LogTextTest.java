package dev.tideline.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Values from data printed in logs: no new line, no terminal control, no forged entry, no huge value. */
class LogTextTest {
    @Test
    void ordinaryValuesArePrintedAsTheyAre() {
        assertThat(LogText.escape("shop.orders")).isEqualTo("shop.orders");
        assertThat(LogText.escape("café ☕ 注文")).isEqualTo("café ☕ 注文");
        assertThat(LogText.escape(null)).isEqualTo("null");
        assertThat(LogText.escape(42)).isEqualTo("42");
    }

    @Test
    void newlinesAndCarriageReturnsCannotStartAnotherLogLine() {
        String forged = "orders\n2026-12-03 10:00:00 ERROR forged entry\r\nmore";
        String escaped = LogText.escape(forged);
        assertThat(escaped).isEqualTo("orders\\n2026-12-03 10:00:00 ERROR forged entry\\r\\nmore");
        assertThat(escaped).doesNotContain("\n").doesNotContain("\r");
        assertThat(LogText.escape("a\u2028b\u2029c\u0085d")).isEqualTo("a\\u2028b\\u2029c\\u0085d");
    }

    @Test
    void controlCharactersAndAnsiEscapesAreShownNotObeyed() {
        assertThat(LogText.escape("\u001b[31mred\u001b[0m")).isEqualTo("\\u001b[31mred\\u001b[0m");
        assertThat(LogText.escape("a\u0000b\u0007c\u007fd\td")).isEqualTo("a\\u0000b\\u0007c\\u007fd\\td");
        assertThat(LogText.escape("\u009b2J")).as("the C1 control sequence introducer").isEqualTo("\\u009b2J");
        assertThat(LogText.escape("abc\u202Edef")).as("a right-to-left override").isEqualTo("abc\\u202edef");
        for (char ch = 0; ch < 0x20; ch++) {
            assertThat(LogText.escape("x" + ch + "y")).doesNotContain(String.valueOf(ch));
        }
    }

    @Test
    void aBackslashIsEscapedSoAnEscapeCannotBeFaked() {
        assertThat(LogText.escape("a\\nb")).isEqualTo("a\\\\nb");
        assertThat(LogText.escape("a\\nb")).isNotEqualTo(LogText.escape("a\nb"));
    }

    @Test
    void veryLongValuesAreCutWithAMarker() {
        String huge = "b".repeat(1_000_000);
        String escaped = LogText.escape(huge);
        assertThat(escaped).startsWith("b".repeat(LogText.MAX_CHARS)).endsWith("...[" + (1_000_000 - LogText.MAX_CHARS) + " more chars]");
        assertThat(escaped.length()).isLessThan(LogText.MAX_CHARS + 30);
        assertThat(LogText.escape("b".repeat(LogText.MAX_CHARS))).as("exactly the limit: whole").isEqualTo("b".repeat(LogText.MAX_CHARS));
        assertThat(LogText.escape("\n".repeat(500), 10)).isEqualTo("\\n".repeat(10) + "...[490 more chars]");
    }

    @Test
    void aMessageIsEscapedAndKeptLongerThanAValue() {
        String error = "E11000 duplicate key error collection: shop.orders dup key: { _id: \"a\nFORGED\" } " + "k".repeat(1_000);
        String escaped = LogText.message(error);
        assertThat(escaped).doesNotContain("\n").contains("a\\nFORGED").hasSize(error.length() + 1);
        assertThat(LogText.message("m".repeat(10_000))).startsWith("m".repeat(LogText.MAX_MESSAGE_CHARS)).endsWith("...[6000 more chars]");
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String emoji = "\uD83D\uDE00"; // one character, two chars
        String escaped = LogText.escape("ab" + emoji + "cd", 3);
        assertThat(escaped).isEqualTo("ab...[4 more chars]");
    }
}
