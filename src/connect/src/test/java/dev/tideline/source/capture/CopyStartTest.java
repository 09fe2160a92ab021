package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** A copy after an event starts just after it (or at the clock when later) and reads after a time the server has reached. */
class CopyStartTest {
    private static final BsonTimestamp RENAME = new BsonTimestamp(1_800_000_150, 7);

    @Test
    void aCopyAfterAnEventStartsJustAfterItWhenTheClockLessItsMarginIsBeforeIt() {
        BsonTimestamp start = CopyStart.after(RENAME, new BsonTimestamp(1_800_000_148, 0));
        assertThat(start).isEqualTo(new BsonTimestamp(1_800_000_150, 8));
        StreamPosition renameEvent = StreamPosition.afterToken(new BsonDocument("_data", new BsonString("00")), RENAME);
        assertThat(SourceOffset.streamAfterCopy(start).streamPosition().covers(renameEvent)).isTrue();
        assertThat(CopyStart.readsAfter(start)).as("the event's own time: the server has reached it").isEqualTo(RENAME);
    }

    @Test
    void aCopyQueuedPastTheEventStartsAtTheClock() {
        BsonTimestamp clock = new BsonTimestamp(1_800_000_160, 0);
        assertThat(CopyStart.after(RENAME, clock)).isEqualTo(clock);
        assertThat(CopyStart.readsAfter(clock)).as("a start from the clock reads after itself, as every new copy").isEqualTo(clock);
    }

    @Test
    void incrementsCompareUnsigned() {
        BsonTimestamp highIncrement = new BsonTimestamp(1_800_000_150, 0x8000_0000);
        assertThat(CopyStart.after(highIncrement, new BsonTimestamp(1_800_000_148, 0))).isEqualTo(new BsonTimestamp(1_800_000_150, 0x8000_0001));
        assertThat(CopyStart.readsAfter(new BsonTimestamp(1_800_000_150, 0x8000_0001))).isEqualTo(highIncrement);
    }
}
