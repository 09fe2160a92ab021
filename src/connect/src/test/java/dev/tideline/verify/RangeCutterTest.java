package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class RangeCutterTest {
    private static MergeJoin.Step<String> step(MergeJoin.Kind kind, int id) {
        return new MergeJoin.Step<>(kind, new BsonInt32(id), kind == MergeJoin.Kind.EXTRA ? null : "s",
                kind == MergeJoin.Kind.MISSING ? null : "d");
    }

    @Test
    void rangesOfRangeSizeSourceDocumentsAndALastOneToTheEnd() {
        List<RangeResult> ranges = new ArrayList<>();
        RangeCutter cutter = new RangeCutter(2, null, ranges::add);
        cutter.add(step(MergeJoin.Kind.SAME, 1));
        cutter.add(step(MergeJoin.Kind.EXTRA, 2));
        cutter.add(step(MergeJoin.Kind.MISSING, 3)); // second source document: closes (start, 3]
        cutter.add(step(MergeJoin.Kind.DIFFERENT, 4));
        cutter.add(step(MergeJoin.Kind.SAME, 5)); // closes (3, 5]
        cutter.add(step(MergeJoin.Kind.EXTRA, 6));
        cutter.add(step(MergeJoin.Kind.EXTRA, 7));
        cutter.finish(); // (5, end]: extras only
        assertThat(ranges).containsExactly(
                new RangeResult(new IdRange(null, new BsonInt32(3)), 2, 2, 1, 1, 0),
                new RangeResult(new IdRange(new BsonInt32(3), new BsonInt32(5)), 2, 2, 0, 0, 1),
                new RangeResult(new IdRange(new BsonInt32(5), null), 0, 2, 0, 2, 0));
        assertThat(ranges.get(0).differs()).isTrue();
        assertThat(ranges.get(1).differs()).isTrue();
    }

    @Test
    void nothingAfterTheLastFullRangeMeansNoLastRange() {
        List<RangeResult> ranges = new ArrayList<>();
        RangeCutter cutter = new RangeCutter(1, new BsonInt32(0), ranges::add);
        cutter.add(step(MergeJoin.Kind.SAME, 1));
        cutter.finish();
        assertThat(ranges).containsExactly(new RangeResult(new IdRange(new BsonInt32(0), new BsonInt32(1)), 1, 1, 0, 0, 0));
        assertThat(ranges.get(0).differs()).isFalse();
        assertThatThrownBy(() -> new RangeCutter(0, null, r -> { })).isInstanceOf(IllegalArgumentException.class);
    }
}
