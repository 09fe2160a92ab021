package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The whole pair on the real worker: a mixed workload on a source MongoDB (with oplog) is captured by
 * the Tideline source ({@code output.format=bson}) and applied by the Tideline sink onto another
 * MongoDB, which must end byte-identical to the source, document by document. A second sink under a
 * new name (a new consumer group, reading from offset 0) then replays every topic onto the same
 * destination, which must not change.
 */
class SourceToSinkIT {
    private static final String SOURCE_DB = "e2e_src";
    private static final String DEST_DB = "e2e_dst";
    private static final String PREFIX = "e2e";
    private static final int OPERATIONS = 50_000;
    private static final Duration CONVERGE = Duration.ofMinutes(5);

    @Test
    void destinationEqualsSourceByteForByteAndAReplayChangesNothing() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase sourceDb = source.client().getDatabase(SOURCE_DB);
            List<String> topics = new ArrayList<>();
            for (String c : MixedWorkload.COLLECTIONS) {
                // one seed each: the collections exist when the source starts, and its copy tells us the stream is open
                sourceDb.getCollection(c).insertOne(MixedWorkload.seed(c));
                topics.add(PREFIX + "." + SOURCE_DB + "." + c);
            }
            rest.putConnector("e2e-source", SourceItSupport.sourceConfig(source.uri(), SOURCE_DB, PREFIX, ValueFormat.BSON, 1));
            try {
                rest.awaitRunning("e2e-source", 1, Duration.ofSeconds(60));
                for (String topic : topics) {
                    TopicReader.readUntil(stack.bootstrapServers(), topic, 1, Duration.ofSeconds(90));
                }
                rest.putConnector("e2e-sink", sinkConfig(topics, destination.uri()));
                rest.awaitRunning("e2e-sink", 1, Duration.ofSeconds(60));

                long started = System.nanoTime();
                MixedWorkload.Counts ops = new MixedWorkload(sourceDb, 42).run(OPERATIONS);
                long writeMillis = millisSince(started);
                long writesDone = System.nanoTime();
                // counted first: comparing every document costs the stand-ins more than the capture can spare
                awaitEvery(Duration.ofSeconds(2), "destination byte-identical to the source", CONVERGE,
                        () -> sameCounts(source.client(), destination.client())
                                && differences(source.client(), destination.client()).isEmpty(),
                        () -> "differences: " + differences(source.client(), destination.client()));
                long convergeMillis = millisSince(writesDone);
                long records = endOffsets(stack.bootstrapServers(), topics);
                // the stand-in's update events lose their _id when the document is deleted before the stream
                // reads them (docs/mongodb-stand-in.md): the source reports those on the control topic, the delete follows
                long reported = endOffsets(stack.bootstrapServers(), List.of(PREFIX + ".control"));
                System.out.printf("source -> topics -> sink: %s in %d ms (%.0f ops/s); %d records on %d topics "
                                + "(+%d on %s.control); destination byte-identical %d ms after the last write (%d ms from the "
                                + "first); %s%n", ops, writeMillis, ops.total() * 1000.0 / Math.max(1, writeMillis), records,
                        topics.size(), reported, PREFIX, convergeMillis, millisSince(started), documentCounts(destination.client()));
                assertThat(ops.total()).isGreaterThanOrEqualTo(OPERATIONS);
                assertThat(ops.inserts()).isPositive();
                assertThat(ops.updates()).isPositive();
                assertThat(ops.replaces()).isPositive();
                assertThat(ops.deletes()).isPositive();

                // Replay: a sink under a new name is a new consumer group, which starts at offset 0.
                Map<String, List<byte[]>> before = snapshot(destination.client(), DEST_DB);
                BsonDateTime lastApplied = lastVersionWrite(destination.client());
                rest.deleteConnector("e2e-sink");
                long replayStarted = System.nanoTime();
                rest.putConnector("e2e-sink-replay", sinkConfig(topics, destination.uri()));
                rest.awaitRunning("e2e-sink-replay", 1, Duration.ofSeconds(60));
                int[] samples = {0};
                // sampled every few seconds: each sample reads every document, and the stand-in serves it
                // under the same locks as the replay's writes
                awaitEvery(Duration.ofSeconds(5), "every version re-applied by the replay", CONVERGE, () -> {
                    // sampled while the replay runs: no intermediate state may differ either
                    assertThat(sameBytes(before, snapshot(destination.client(), DEST_DB)))
                            .as("destination unchanged during the replay").isTrue();
                    samples[0]++;
                    return allVersionsWrittenAfter(destination.client(), lastApplied);
                }, () -> versions(destination.client()).countDocuments(Filters.lte("appliedAt", lastApplied)) + " versions not re-applied");
                long replayMillis = millisSince(replayStarted);
                Map<String, List<byte[]>> after = snapshot(destination.client(), DEST_DB);
                System.out.printf("replay of %d records from offset 0 by a new sink: %d ms, destination compared %d times "
                        + "during it and once after: unchanged%n", records, replayMillis, samples[0]);
                assertThat(sameBytes(before, after)).isTrue();
                assertThat(differences(source.client(), destination.client())).isEmpty();
            } finally {
                rest.deleteConnector("e2e-sink-replay");
                rest.deleteConnector("e2e-sink");
                rest.deleteConnector("e2e-source");
            }
        }
    }

    private static boolean sameCounts(MongoClient source, MongoClient destination) {
        return MixedWorkload.COLLECTIONS.stream().allMatch(c -> source.getDatabase(SOURCE_DB).getCollection(c).countDocuments()
                == destination.getDatabase(DEST_DB).getCollection(c).countDocuments());
    }

    /** Like SinkItSupport.await, checking every {@code interval} (each check reads whole collections). */
    private static void awaitEvery(Duration interval, String what, Duration timeout, BooleanSupplier condition,
                                   Supplier<String> state) {
        Waits.until(timeout, interval, condition::getAsBoolean, Boolean::booleanValue,
                x -> "timed out after " + timeout + " waiting for " + what + "; " + state.get());
    }

    private static Map<String, String> sinkConfig(List<String> topics, String uri) {
        return SinkItSupport.sinkConfig(String.join(",", topics), uri, DEST_DB, ValueFormat.BSON);
    }

    /** Each collection's documents as the server returns them, sorted by _id, as raw BSON bytes. */
    private static Map<String, List<byte[]>> snapshot(MongoClient client, String db) {
        return MixedWorkload.COLLECTIONS.stream().collect(Collectors.toMap(c -> c, c -> {
            List<byte[]> docs = new ArrayList<>();
            MongoCollection<RawBsonDocument> coll = client.getDatabase(db).getCollection(c, RawBsonDocument.class);
            for (RawBsonDocument d : coll.find().sort(Sorts.ascending("_id"))) {
                ByteBuf buf = d.getByteBuffer();
                byte[] bytes = new byte[buf.remaining()];
                buf.get(bytes);
                docs.add(bytes);
            }
            return docs;
        }));
    }

    private static boolean sameBytes(Map<String, List<byte[]>> a, Map<String, List<byte[]>> b) {
        return differences(a, b, Integer.MAX_VALUE).isEmpty();
    }

    /** Where the destination differs from the source (a few examples), empty when byte-identical. */
    private static List<String> differences(MongoClient source, MongoClient destination) {
        return differences(snapshot(source, SOURCE_DB), snapshot(destination, DEST_DB), 3);
    }

    private static List<String> differences(Map<String, List<byte[]>> expected, Map<String, List<byte[]>> actual, int limit) {
        List<String> diffs = new ArrayList<>();
        for (String c : MixedWorkload.COLLECTIONS) {
            List<byte[]> want = expected.get(c);
            List<byte[]> got = actual.get(c);
            if (want.size() != got.size()) {
                diffs.add(c + ": " + got.size() + " documents instead of " + want.size());
                continue;
            }
            for (int i = 0; i < want.size() && diffs.size() < limit; i++) {
                if (!Arrays.equals(want.get(i), got.get(i))) {
                    diffs.add(c + ": " + new RawBsonDocument(got.get(i)).toJson() + " instead of " + new RawBsonDocument(want.get(i)).toJson());
                }
            }
        }
        return diffs;
    }

    private static String documentCounts(MongoClient client) {
        return MixedWorkload.COLLECTIONS.stream()
                .map(c -> c + " " + client.getDatabase(DEST_DB).getCollection(c).countDocuments())
                .collect(Collectors.joining(", ", "documents: ", ""));
    }

    /** Records on the topics: the sum of their end offsets; 0 for topics that do not exist. */
    private static long endOffsets(String bootstrap, List<String> topics) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<String> present = topics.stream().filter(existing::contains).toList();
            Map<TopicPartition, OffsetSpec> latest = admin.describeTopics(present).allTopicNames().get(30, TimeUnit.SECONDS)
                    .values().stream().flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                    .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(info -> info.offset()).sum();
        }
    }

    /** The newest appliedAt in the sink's version sidecar (every change of the workload carries a cluster time). */
    private static BsonDateTime lastVersionWrite(MongoClient client) {
        BsonDocument newest = versions(client).find().sort(Sorts.descending("appliedAt")).first();
        assertThat(newest).as("the sink records versions").isNotNull();
        return newest.getDateTime("appliedAt");
    }

    /**
     * The replay is done when every version entry was written again: the last change of each
     * document carries the version the sidecar holds, and equal versions are applied again.
     */
    private static boolean allVersionsWrittenAfter(MongoClient client, BsonDateTime since) {
        return versions(client).countDocuments(Filters.lte("appliedAt", since)) == 0;
    }

    private static MongoCollection<BsonDocument> versions(MongoClient client) {
        return client.getDatabase(DEST_DB).getCollection("_tideline_versions", BsonDocument.class);
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
