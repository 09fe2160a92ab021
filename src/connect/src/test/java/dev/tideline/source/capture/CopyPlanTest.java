package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** Which chunks a split copy has, what each holds, and which task copies each. */
class CopyPlanTest {
    private static final BsonTimestamp START = new BsonTimestamp(1_700_000_000, 1);

    @Test
    void aCollectionIsSplitOnlyWithSeveralTasksFromTheSizeSet() {
        assertThat(CopyPlan.chunkCount(1_000_000, 4, 500_000)).isEqualTo(4);
        assertThat(CopyPlan.chunkCount(500_000, 2, 500_000)).isEqualTo(2);
        assertThat(CopyPlan.chunkCount(499_999, 4, 500_000)).isEqualTo(1);
        assertThat(CopyPlan.chunkCount(10_000_000, 1, 500_000)).as("one task").isEqualTo(1);
        assertThat(CopyPlan.chunkCount(10_000_000, 4, 0)).as("0 never splits").isEqualTo(1);
    }

    @Test
    void boundsFallAtEvenPositions() {
        assertThat(CopyPlan.boundPositions(1_000, 4)).containsExactly(250L, 500L, 750L);
        assertThat(CopyPlan.boundPositions(1_000, 1)).isEmpty();
    }

    @Test
    void chunksRunFromTheStartToTheEndBetweenTheBounds() {
        CopyPlan plan = new CopyPlan(START, List.of(new BsonInt32(10), new BsonString("m")));

        assertThat(plan.chunks()).isEqualTo(3);
        assertThat(plan.chunk(0)).isEqualTo(new CopyPlan.Chunk(0, null, new BsonInt32(10)));
        assertThat(plan.chunk(1)).isEqualTo(new CopyPlan.Chunk(1, new BsonInt32(10), new BsonString("m")));
        assertThat(plan.chunk(2)).isEqualTo(new CopyPlan.Chunk(2, new BsonString("m"), null));
        assertThatThrownBy(() -> plan.chunk(3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new CopyPlan(START, List.of()).chunk(0)).isEqualTo(new CopyPlan.Chunk(0, null, null));
    }

    @Test
    void boundsMustIncreaseInMongoDbOrder() {
        assertThatThrownBy(() -> new CopyPlan(START, List.of(new BsonString("a"), new BsonInt32(5))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("increase");
        assertThatThrownBy(() -> new CopyPlan(START, List.of(new BsonInt32(5), new BsonInt32(5))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyChunkIsCopiedByExactlyOneTaskAndTheOwnerTakesTheFirst() {
        List<BsonValue> bounds = new ArrayList<>();
        for (int i = 1; i < 7; i++) {
            bounds.add(new BsonInt32(i * 100));
        }
        CopyPlan plan = new CopyPlan(START, bounds); // 7 chunks
        for (int tasks = 1; tasks <= 5; tasks++) {
            for (int owner = 0; owner < tasks; owner++) {
                List<Integer> all = new ArrayList<>();
                for (int task = 0; task < tasks; task++) {
                    plan.chunksOf(task, owner, tasks).forEach(c -> all.add(c.index()));
                }
                assertThat(all).as("%d tasks, owner %d", tasks, owner).hasSize(7).doesNotHaveDuplicates();
                assertThat(plan.chunksOf(owner, owner, tasks)).extracting(CopyPlan.Chunk::index).contains(0);
            }
        }
        // as many chunks as tasks: one each
        CopyPlan four = new CopyPlan(START, bounds.subList(0, 3));
        for (int task = 0; task < 4; task++) {
            assertThat(four.chunksOf(task, 2, 4)).hasSize(1);
        }
    }
}
