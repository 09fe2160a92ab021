package dev.tideline.verify.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.verify.Hashing;
import dev.tideline.verify.VerifySettings;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VerifyArgumentsTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:15:30Z");

    private static VerifyArguments parse(String... args) {
        return VerifyArguments.parse(args, Map.of(), NOW);
    }

    @Test
    void defaults() {
        VerifyArguments a = parse("--source", "mongodb://a", "--destination", "mongodb://b");
        VerifySettings s = a.settings();
        assertThat(s.sourceUri()).isEqualTo("mongodb://a");
        assertThat(s.hashing()).isEqualTo(Hashing.AUTO);
        assertThat(s.rangeSize()).isEqualTo(10_000);
        assertThat(s.rechecks()).isEqualTo(3);
        assertThat(s.recheckDelayMs()).isEqualTo(5_000);
        assertThat(s.databases()).isEmpty();
        assertThat(s.comparison().ignoredFields()).isEmpty();
        assertThat(s.peers()).isFalse();
        assertThat(a.report()).isEqualTo("verify-20261201-101530.jsonl");
    }

    @Test
    void everyOption() {
        VerifyArguments a = parse("--source=mongodb://a", "--destination", "mongodb://b", "--peers", "--database", "shop,crm",
                "--database", "ops", "--destination-database", "replica", "--include", "shop\\..*", "--exclude", ".*\\.tmp",
                "--ignore-field", "audit", "--ignore-field-order", "--hashing", "client", "--range-size", "500", "--batch-size", "100",
                "--rechecks", "0", "--recheck-delay", "0.25", "--connect-timeout", "3", "--report", "-", "--quiet");
        VerifySettings s = a.settings();
        assertThat(s.peers()).isTrue();
        assertThat(s.databases()).containsExactly("shop", "crm", "ops");
        assertThat(s.destinationDatabase()).isEqualTo("replica");
        assertThat(s.collections().accepts("shop.orders")).isTrue();
        assertThat(s.collections().accepts("shop.tmp")).isFalse();
        assertThat(s.collections().accepts("crm.people")).isFalse();
        assertThat(s.comparison().ignoredFields()).isEqualTo(Set.of("audit", "_tl"));
        assertThat(s.comparison().ignoreFieldOrder()).isTrue();
        assertThat(s.hashing()).isEqualTo(Hashing.CLIENT);
        assertThat(s.rangeSize()).isEqualTo(500);
        assertThat(s.batchSize()).isEqualTo(100);
        assertThat(s.rechecks()).isZero();
        assertThat(s.recheckDelayMs()).isEqualTo(250);
        assertThat(s.connectTimeoutMs()).isEqualTo(3000);
        assertThat(a.report()).isEqualTo("-");
        assertThat(a.quiet()).isTrue();
    }

    @Test
    void connectionStringsFromTheEnvironment() {
        VerifyArguments a = VerifyArguments.parse(new String[0], Map.of(VerifyArguments.SOURCE_ENV, "mongodb://u:secret@a",
                VerifyArguments.DESTINATION_ENV, "mongodb://b"), NOW);
        assertThat(a.settings().sourceUri()).isEqualTo("mongodb://u:secret@a");
        assertThat(parse("--help").help()).isTrue();
    }

    @Test
    void repairIsAFlag() {
        assertThat(parse("--source", "mongodb://a", "--destination", "mongodb://b").repair()).isFalse();
        VerifyArguments a = parse("--source", "mongodb://a", "--repair", "--destination", "mongodb://b", "--report", "out/r.jsonl");
        assertThat(a.repair()).isTrue();
        assertThat(a.report()).isEqualTo("out/r.jsonl");
        assertThat(a.settings().destinationUri()).as("--repair takes no value").isEqualTo("mongodb://b");
        assertThat(parse("--source", "mongodb://a", "--destination", "mongodb://b", "--repair").report())
                .isEqualTo("verify-20261201-101530.jsonl");
        assertThat(VerifyArguments.USAGE).contains("--repair").contains("_tideline_signals");
    }

    @Test
    void repairNeedsAReportFileAndNoPeers() {
        // in either order: the check runs once every option is read
        for (String[] args : new String[][] {
                {"--source", "mongodb://a", "--destination", "mongodb://b", "--report", "-", "--repair"},
                {"--source", "mongodb://a", "--destination", "mongodb://b", "--repair", "--report=-"}}) {
            assertThatThrownBy(() -> parse(args)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--repair needs the report in a file (--report FILE, or leave --report out)")
                    .hasMessageContaining("read back");
        }
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--peers", "--repair"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--repair does not work with --peers")
                .hasMessageContaining("use --peer-recovery report|copy|delete with --peer-ids and --peer-key-file");
        assertThat(parse("--source", "mongodb://a", "--destination", "mongodb://b", "--peers", "--report", "-").settings().peers())
                .as("--peers and --report - stay fine without --repair").isTrue();
    }

    @Test
    void mistakesNameTheOptionAndWhatItTakes() {
        assertThatThrownBy(() -> parse("--destination", "mongodb://b")).hasMessageContaining("--source is required")
                .hasMessageContaining(VerifyArguments.SOURCE_ENV);
        assertThatThrownBy(() -> parse("--source", "mongodb://a")).hasMessageContaining("--destination is required");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--range-size", "0"))
                .hasMessage("--range-size must be at least 1, got 0");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--rechecks", "x"))
                .hasMessage("--rechecks takes a whole number, got 'x'");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--recheck-delay", "-1"))
                .hasMessageContaining("--recheck-delay takes seconds");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--hashing", "fast"))
                .hasMessageContaining("auto, server or client");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--hashing", "server", "--ignore-field-order"))
                .hasMessageContaining("--ignore-field-order needs --hashing client or auto");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--database", "shop.orders"))
                .hasMessageContaining("--database shop.orders is not a database name");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--include", "(")).hasMessageContaining("regular expression");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "mongodb://b", "--frobnicate")).hasMessageContaining("unknown option --frobnicate");
        assertThatThrownBy(() -> parse("--source")).hasMessageContaining("--source needs a value, a connection string");
        assertThatThrownBy(() -> parse("--source", "mongodb://a", "--destination", "http://u:pw@b")).hasMessageStartingWith(
                "--destination is not a MongoDB connection string").hasMessageNotContaining("pw");
    }
}
