package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static dev.tideline.it.SinkItSupport.byteDifferences;
import static dev.tideline.it.SinkItSupport.send;
import static dev.tideline.it.SinkItSupport.sinkConfig;
import static dev.tideline.it.SinkItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.SinkItSupport.Workload;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.ClassMongo;
import dev.tideline.it.support.TestStack;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Change records in both forms, produced straight into topics, applied by the sink on the real worker. */
class SinkApplyIT {
    private static final Duration CONVERGE = Duration.ofMinutes(3);
    private static final TestStack stack = TestStack.shared();
    @RegisterExtension
    static final ClassMongo destination = new ClassMongo();

    @Test
    void bsonFormIsAppliedByteIdenticallyAndAReplayFromOffsetZeroChangesNothing() throws Exception {
        String topic = "sink-it-apply-bson";
        String connector = "sink-apply-bson";
        Namespace source = new Namespace("shop", "orders");
        Namespace dest = new Namespace("apply_bson", "orders");
        stack.createTopic(topic, 3);
        Workload w = Workload.generate(source, 12_000, 3_000, 1);
        produce(topic, w, ValueFormat.BSON);

        ConnectRest rest = stack.rest();
        rest.putConnector(connector, sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.BSON));
        rest.awaitRunning(connector, 1, Duration.ofSeconds(60));
        long started = System.nanoTime();
        await("destination equal to the source", CONVERGE,
                () -> byteDifferences(w.expected(), snapshot(destination.client(), dest)).isEmpty());
        long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
        System.out.printf("bson form: %s; applied and byte-identical after %d ms%n", w.summary(), millis);

        // Replay: stop, forget the committed offsets (KIP-875), resume: the sink reads from offset 0 again.
        BsonDateTime beforeReplay = latestVersionWrite(dest);
        Map<BsonValue, RawBsonDocument> before = snapshot(destination.client(), dest);
        rest.stop(connector);
        await("offsets reset", Duration.ofSeconds(30), () -> {
            HttpResponse<String> r = rest.deleteOffsets(connector);
            return r.statusCode() == 200;
        });
        rest.resume(connector);
        rest.awaitRunning(connector, 1, Duration.ofSeconds(60));
        long reapplied = awaitReplayed(dest, beforeReplay, w);

        Map<BsonValue, RawBsonDocument> after = snapshot(destination.client(), dest);
        System.out.printf("replay from offset 0: %d versions written again, %d documents before and after, %d differences%n",
                reapplied, before.size(), byteDifferences(w.expected(), after).size());
        assertThat(after).isEqualTo(before);
        assertThat(byteDifferences(w.expected(), after)).isEmpty();
        rest.deleteConnector(connector);
    }

    @Test
    void jsonFormFromJsonConverterIsApplied() throws Exception {
        String topic = "sink-it-apply-json";
        String connector = "sink-apply-json";
        Namespace source = new Namespace("shop", "customers");
        Namespace dest = new Namespace("apply_json", "customers");
        stack.createTopic(topic, 2);
        Workload w = Workload.generate(source, 4_000, 1_000, 2);
        produce(topic, w, ValueFormat.JSON);

        stack.rest().putConnector(connector, sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.JSON));
        stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
        // JsonConverter's schemaless maps do not keep field order, so the json form is compared by
        // value (types included: int32 vs int64, dates); byte identity is what the bson form is for.
        await("destination equal to the source", CONVERGE, () -> {
            Map<BsonValue, RawBsonDocument> got = snapshot(destination.client(), dest);
            return got.size() == w.expected().size() && w.expected().entrySet().stream()
                    .allMatch(e -> e.getValue().equals(got.get(e.getKey())));
        });
        Map<BsonValue, RawBsonDocument> got = snapshot(destination.client(), dest);
        System.out.printf("json form: %s; destination holds %d equal documents%n", w.summary(), got.size());
        BsonDocument one = w.expected().values().iterator().next();
        assertThat(got.get(one.get("_id")).get("big").isInt64()).isTrue();
        assertThat(got.get(one.get("_id")).get("step").isInt32()).isTrue();
        stack.rest().deleteConnector(connector);
    }

    private static void produce(String topic, Workload w, ValueFormat format) {
        try (KafkaProducer<byte[], byte[]> producer = SinkItSupport.producer(stack.bootstrapServers())) {
            for (ChangeEvent e : w.changes()) {
                send(producer, topic, null, e, format);
            }
            producer.flush();
        }
    }

    /** The newest appliedAt of the sidecar: a replay writes the versions again, so this moves. */
    private static BsonDateTime latestVersionWrite(Namespace dest) {
        BsonDocument newest = destination.client().getDatabase(dest.db()).getCollection("_tideline_versions", BsonDocument.class)
                .find().sort(new BsonDocument("appliedAt", new org.bson.BsonInt32(-1))).first();
        return newest == null ? new BsonDateTime(0) : newest.getDateTime("appliedAt");
    }

    /** Waits until every version entry of the replayed documents has been written again; returns how many were. */
    private static long awaitReplayed(Namespace dest, BsonDateTime since, Workload w) {
        var versions = destination.client().getDatabase(dest.db()).getCollection("_tideline_versions");
        long total = versions.countDocuments();
        await("every version re-applied by the replay", Duration.ofMinutes(3),
                () -> versions.countDocuments(Filters.gt("appliedAt", since)) == total);
        return versions.countDocuments(Filters.gt("appliedAt", since));
    }
}
