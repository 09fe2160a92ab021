package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.standin.MongoFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A split copy's bounds found by walking the {@code _id} index forward once, counted in index keys examined on the
 * stand-in (which answers {@code _id} ranges sorted by {@code _id} from its ordered index and counts the keys it walks,
 * as MongoDB's {@code keysExamined}); and a bound not found within {@code maxTimeMS} ends the planning, never retried.
 */
class SplitBoundsTest {
    /** MongoDB's figure for a planning by absolute skips: each bound walks from the index's start. */
    private static long absoluteSkipKeys(long n, int chunks) {
        return CopyPlan.boundPositions(n, chunks).stream().mapToLong(at -> at + 1).sum();
    }

    private MongoFixture mongo;

    @AfterEach
    void stop() {
        if (mongo != null) {
            mongo.close();
        }
    }

    /**
     * A collection of ids {@code 0..n-1}. The documents are loaded into the stand-in's collection directly (through
     * its own insert path, indexes included), not over the wire: a million driver inserts take half a minute here,
     * and only the finds are what is measured.
     */
    private MongoCollection<RawBsonDocument> collectionOf(AwaitingMemoryBackend backend, int n) {
        mongo = MongoFixture.inProcess(backend, false); // a copy's planning needs no oplog
        MongoCollection<RawBsonDocument> coll = mongo.client().getDatabase("copy").getCollection("big", RawBsonDocument.class);
        mongo.client().getDatabase("copy").createCollection("big");
        backend.resolveDatabase("copy").resolveCollection("big", true)
                .addDocuments(IntStream.range(0, n).mapToObj(i -> new de.bwaldvogel.mongo.bson.Document("_id", i)));
        return coll;
    }

    private static List<BsonValue> ints(long... values) {
        List<BsonValue> out = new ArrayList<>();
        for (long v : values) {
            out.add(new BsonInt32((int) v));
        }
        return out;
    }

    /**
     * n ids and 8 tasks: the bounds cost at most about n index keys in all (each one found from the last), where
     * absolute skips cost n·(k−1)/2. n is 200,000 by default: at 1,000,000 the test took 43 s here, 34 s of them
     * loading the ids into the stand-in and 3 s finding the bounds (875,001 keys examined against 3,500,007 for
     * absolute skips); {@code -Dsplit.bounds.ids=1000000} runs it at that size.
     */
    @Test
    void eightBoundsExamineAboutNKeysInAll() {
        int n = Integer.getInteger("split.bounds.ids", 200_000);
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
        MongoCollection<RawBsonDocument> coll = collectionOf(backend, n);
        long before = backend.indexKeysExamined();
        List<BsonValue> bounds = SplitBounds.find(coll, n, 8, SplitBounds.BOUND_MAX_TIME_MS);
        long examined = backend.indexKeysExamined() - before;
        System.out.printf("split bounds for %,d ids and 8 tasks: %,d index keys examined (absolute skips: %,d)%n", n, examined,
                absoluteSkipKeys(n, 8));
        List<BsonValue> expected = new ArrayList<>();
        CopyPlan.boundPositions(n, 8).forEach(at -> expected.add(new BsonInt32(at.intValue())));
        assertThat(bounds).isEqualTo(expected);
        assertThat(examined).as("about n keys in all, not n·(k−1)/2 = %d", absoluteSkipKeys(n, 8)).isLessThanOrEqualTo(n + 16L);
    }

    @Test
    void aLongStepIsWalkedInSeveralPagesAndFewerDocumentsThanEstimatedGiveFewerBounds() {
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
        MongoCollection<RawBsonDocument> coll = collectionOf(backend, 1_000);
        assertThat(SplitBounds.find(coll, 1_000, 4, SplitBounds.BOUND_MAX_TIME_MS, 7)).isEqualTo(ints(250, 500, 750));
        assertThat(SplitBounds.find(coll, 2_000, 4, SplitBounds.BOUND_MAX_TIME_MS)).as("the estimate was twice too high")
                .isEqualTo(ints(500));
    }

    /**
     * Each find carries maxTimeMS; a server that answers MaxTimeMSExpired (50, as MongoDB 8.0's defaultMaxTimeMS does
     * to a find without its own) ends the planning with an error naming the bound, after ONE find: never a retry.
     */
    @Test
    void aBoundNotFoundInTimeEndsThePlanningWithAClearErrorNotARetry() {
        FaultInjectingBackend backend = new FaultInjectingBackend();
        MongoCollection<RawBsonDocument> coll = collectionOf(backend, 1_000);
        long findsBefore = backend.received("find");
        backend.failNext("copy", Set.of("find"), q -> q.get("maxTimeMS") instanceof Number, 50, "MaxTimeMSExpired", Integer.MAX_VALUE);
        assertThatThrownBy(() -> SplitBounds.find(coll, 1_000, 4, 5_000)).isInstanceOf(SplitBounds.NotFoundInTime.class)
                .hasMessageContaining("document 250 of about 1000").hasMessageContaining("maxTimeMS 5000");
        assertThat(backend.received("find") - findsBefore).isEqualTo(1);
        assertThat(backend.injected()).as("the find carried maxTimeMS").isEqualTo(1);

        // the copy's planning: logged, and the copy is not split (its owner copies it whole), after one more find
        assertThat(SplitBounds.findOrUnsplit(coll, 1_000, 4)).isEmpty();
        assertThat(backend.received("find") - findsBefore).isEqualTo(2);
    }
}
