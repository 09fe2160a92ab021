package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class RepairProgressTest {
    private static final SourceOffset AT = SourceOffset.streamFrom(new BsonTimestamp(100, 1));

    @Test
    void aRunningRepairAndTheDoneListSurviveTheOffsetRoundTrip() {
        BsonObjectId sig = new BsonObjectId(new ObjectId());
        RepairProgress p = RepairProgress.NONE.start(new BsonString("old")).finished()
                .start(sig).began(new BsonTimestamp(7, 3)).copiedUpTo(new BsonInt32(42));
        Map<String, Object> offset = new HashMap<>(SourceOffset.withRepair(AT.recordOffset(), p));
        assertThat(SourceOffset.repair(offset)).isEqualTo(p);
        assertThat(SourceOffset.fromMap(offset)).isEqualTo(AT); // the position itself is unchanged
        assertThat(SourceOffset.repair(offset).isRunning(sig)).isTrue();
        assertThat(SourceOffset.repair(offset).isDone(new BsonString("old"))).isTrue();
    }

    @Test
    void nothingToKeepLeavesTheOffsetAsItIs() {
        Map<String, Object> offset = AT.recordOffset();
        assertThat(SourceOffset.withRepair(offset, RepairProgress.NONE)).isSameAs(offset);
        assertThat(SourceOffset.repair(AT.toMap())).isEqualTo(RepairProgress.NONE);
    }

    @Test
    void finishingMovesTheSignalToTheDoneListWhichKeepsTheLatest() {
        RepairProgress p = RepairProgress.NONE;
        for (int i = 0; i < RepairProgress.DONE_KEPT + 5; i++) {
            p = p.start(new BsonInt32(i)).began(new BsonTimestamp(1, i)).finished();
        }
        assertThat(p.running()).isFalse();
        assertThat(p.done()).hasSize(RepairProgress.DONE_KEPT);
        assertThat(p.isDone(new BsonInt32(4))).isFalse();
        assertThat(p.isDone(new BsonInt32(RepairProgress.DONE_KEPT + 4))).isTrue();
    }

    @Test
    void aMalformedRepairKeyIsRefusedNamingIt() {
        Map<String, Object> offset = new HashMap<>(AT.toMap());
        offset.put("repair", "{\"epoch\": 5}");
        assertThatThrownBy(() -> SourceOffset.fromMap(offset)).isInstanceOf(InvalidOffsetException.class).hasMessageContaining("'repair'");
        offset.put("repair", "{\"last\": 5, \"done\": []}");
        assertThatThrownBy(() -> SourceOffset.repair(offset)).hasMessageContaining("needs 'sig'");
        offset.put("repair", 12);
        assertThatThrownBy(() -> SourceOffset.repair(offset)).hasMessageContaining("'repair'");
    }
}
