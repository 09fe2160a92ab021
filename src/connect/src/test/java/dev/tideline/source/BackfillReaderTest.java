package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.SourceOffset;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The backfill copies in _id order in batches, resumes after a copied _id, and ends with its complete
 * marker and the switch to streaming at the copy's stream start.
 */
class BackfillReaderTest {
    private static final BsonTimestamp START = new BsonTimestamp(1_700_000_000, 0);
    private static final Namespace NS = new Namespace("b", "docs");
    private static InProcessMongo mongo;
    private static final java.util.concurrent.ThreadFactory THREADS = r -> {
        Thread t = new Thread(r, "backfill-test");
        t.setDaemon(true);
        return t;
    };

    @BeforeAll
    static void load() {
        mongo = new InProcessMongo();
        List<Document> all = new ArrayList<>();
        for (int i = 2_500; i >= 1; i--) { // inserted backwards: the order comes from the sort
            all.add(new Document("_id", i).append("v", 0));
        }
        mongo.db("b").getCollection("docs").insertMany(all);
    }

    @AfterAll
    static void close() {
        mongo.close();
    }

    private static List<List<Captured>> readAll(BackfillReader reader) throws InterruptedException {
        List<List<Captured>> batches = new ArrayList<>();
        while (!reader.finished()) {
            batches.add(reader.next());
        }
        reader.close();
        return batches;
    }

    private static List<Integer> copiedIds(List<List<Captured>> batches) {
        List<Integer> ids = new ArrayList<>();
        batches.forEach(b -> b.stream().filter(c -> c instanceof Captured.Change)
                .forEach(c -> ids.add(((Captured.Change) c).event().id().asInt32().getValue())));
        return ids;
    }

    private static BackfillReader reader(Namespace ns, BsonDocument filter, int batch, SourceOffset from, int partitions, long estimate) {
        return new BackfillReader(mongo.client, ns, filter, batch, from, partitions, null, new BackfillProgress(estimate,
                System.currentTimeMillis()), THREADS);
    }

    private static BackfillReader chunkReader(Namespace ns, CopyPlan.Chunk chunk, SourceOffset from) {
        return new BackfillReader(mongo.client, ns, new BsonDocument(), 100, from, 3, chunk, new BackfillProgress(0,
                System.currentTimeMillis()), THREADS);
    }

    @Test
    void theChunksOfASplitCopyHoldEveryIdOnceAndEachEndsWithItsDoneOffsetOnly() throws InterruptedException {
        // ids of several types: MongoDB orders numbers before strings before ObjectIds, and a range's $lt/$gte
        // compare only within a type, so the chunk bounds must take in the other types by $type (IdOrder)
        Namespace mixed = new Namespace("b", "mixed");
        List<Document> docs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            docs.add(new Document("_id", i));
            docs.add(new Document("_id", "s" + (1000 + i)));
            docs.add(new Document("_id", new org.bson.types.ObjectId()));
        }
        mongo.db("b").getCollection("mixed").insertMany(docs);
        CopyPlan plan = new CopyPlan(START, List.of(new BsonInt32(150), new org.bson.BsonString("s1100"), new org.bson.BsonString("s1250")));
        List<org.bson.BsonValue> seen = new ArrayList<>();
        for (int i = 0; i < plan.chunks(); i++) {
            List<Captured> all = readAll(chunkReader(mixed, plan.chunk(i), SourceOffset.backfill(START, null))).stream()
                    .flatMap(List::stream).toList();
            List<org.bson.BsonValue> ids = all.stream().filter(c -> c instanceof Captured.Change)
                    .map(c -> ((Captured.Change) c).event().id()).toList();
            seen.addAll(ids);
            assertThat(all.stream().filter(c -> c instanceof Captured.Marker)).as("chunk %d sends no marker", i).isEmpty();
            Captured last = all.get(all.size() - 1);
            assertThat(last).isEqualTo(new Captured.Heartbeat(SourceOffset.chunkDone(START, ids.get(ids.size() - 1))));
            assertThat(last.offset().isChunkDone()).isTrue();
        }
        assertThat(seen).hasSize(900).doesNotHaveDuplicates();
        assertThat(seen.subList(0, 150)).allMatch(v -> v.isInt32() && v.asInt32().getValue() < 150);
    }

    @Test
    void aChunkResumedAfterItsLastCopiedIdStaysInsideItsRange() throws InterruptedException {
        CopyPlan plan = new CopyPlan(START, List.of(new BsonInt32(1_000), new BsonInt32(2_000)));
        List<Integer> ids = copiedIds(readAll(chunkReader(NS, plan.chunk(1), SourceOffset.backfill(START, new BsonInt32(1_499)))));

        assertThat(ids).hasSize(500).isSorted().startsWith(1_500).endsWith(1_999);
    }

    @Test
    void copiesEverythingInIdOrderInBatchesAndEndsWithTheMarkerAndTheStreamStart() throws InterruptedException {
        List<List<Captured>> batches = readAll(reader(NS, new BsonDocument(), 1000, SourceOffset.backfill(START, null), 1, 2_500));

        assertThat(batches).hasSize(3);
        assertThat(batches.get(0)).hasSize(1000);
        assertThat(copiedIds(batches)).hasSize(2_500).isSorted().startsWith(1).endsWith(2_500);
        List<Captured> lastBatch = batches.get(2);
        assertThat(lastBatch.get(lastBatch.size() - 2)).isEqualTo(new Captured.Marker(
                new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, START, 1), SourceOffset.backfill(START, new BsonInt32(2_500))));
        Captured last = lastBatch.get(lastBatch.size() - 1);
        assertThat(last).isInstanceOf(Captured.Heartbeat.class);
        assertThat(last.offset()).isEqualTo(SourceOffset.streamAfterCopy(START));
        assertThat(last.offset().isAfterCopy()).isTrue();
        Captured.Change firstOfSecond = (Captured.Change) batches.get(1).get(0);
        assertThat(firstOfSecond.offset()).isEqualTo(SourceOffset.backfill(START, new BsonInt32(1001)));
    }

    /**
     * A chunk migration (sharded clusters) moves documents between shards without changing them: a copy made after it
     * holds each document once (on MongoDB the copy's majority read concern leaves the orphans of a migration out).
     */
    @Test
    void aCopyAfterAChunkMigrationHoldsEachDocumentOnce() throws InterruptedException {
        Namespace migrated = new Namespace("b", "migrated");
        List<Document> docs = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            docs.add(new Document("_id", i).append("v", i));
        }
        mongo.db(migrated.db()).getCollection(migrated.coll()).insertMany(docs);
        assertThat(mongo.backend.migrateChunk(migrated.db(), migrated.coll(), List.of(3, 4, 5, 6))).isEqualTo(4);

        List<Integer> ids = copiedIds(readAll(reader(migrated, new BsonDocument(), 4, SourceOffset.backfill(START, null), 1, 10)));

        assertThat(ids).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    }

    @Test
    void resumesAfterTheLastCopiedIdAndAppliesTheFilter() throws InterruptedException {
        List<Integer> ids = copiedIds(readAll(reader(NS, BsonDocument.parse("{\"_id\": {\"$lte\": 2000}}"), 300,
                SourceOffset.backfill(START, new BsonInt32(1_000)), 1, 2_500)));

        assertThat(ids).hasSize(1_000).isSorted().startsWith(1_001).endsWith(2_000);
    }

    @Test
    void anEmptyCollectionEndsItsCopyAtOnce() throws InterruptedException {
        List<List<Captured>> batches = readAll(reader(new Namespace("b", "none"), new BsonDocument(), 1000,
                SourceOffset.backfill(START, null), 2, 0));

        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).containsExactly(
                new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, new Namespace("b", "none"), START, 2),
                        SourceOffset.backfill(START, null)),
                new Captured.Heartbeat(SourceOffset.streamAfterCopy(START)));
    }

    @Test
    void aCopyResumedAfterARestartStillEndsWithItsCompleteMarkerOnEveryPartition() throws InterruptedException {
        List<List<Captured>> batches = readAll(reader(NS, BsonDocument.parse("{\"_id\": {\"$lte\": 1500}}"), 1000,
                SourceOffset.backfill(START, new BsonInt32(1_200)), 3, 2_500));

        List<Captured> all = batches.stream().flatMap(List::stream).toList();
        assertThat(copiedIds(batches)).hasSize(300).startsWith(1_201).endsWith(1_500);
        assertThat(all.get(1).offset()).isEqualTo(SourceOffset.backfill(START, new BsonInt32(1_202)));
        Captured marker = all.get(all.size() - 2);
        assertThat(marker).isEqualTo(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, START, 3),
                SourceOffset.backfill(START, new BsonInt32(1_500))));
        assertThat(all.get(all.size() - 1)).isEqualTo(new Captured.Heartbeat(SourceOffset.streamAfterCopy(START)));
        assertThat(all.stream().filter(c -> c instanceof Captured.Marker)).hasSize(1);
    }
}
