package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static dev.tideline.it.SinkItSupport.send;
import static dev.tideline.it.SinkItSupport.sinkConfig;
import static dev.tideline.it.SinkItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ClassMongo;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stale-write guard on the real worker: late changes (older cluster time) lose to what the destination holds. */
class SinkStaleGuardIT {
    private static final Namespace SOURCE = new Namespace("shop", "orders");
    private static final Namespace MARKERS = new Namespace("shop", "markers");
    private static final TestStack stack = TestStack.shared();
    @RegisterExtension
    static final ClassMongo destination = new ClassMongo();

    private static ChangeEvent change(Op op, int id, String name, int seconds) {
        BsonDocument doc = op == Op.DELETE ? null
                : new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString(name));
        return new ChangeEvent(op, SOURCE, new BsonInt32(id), doc, new BsonTimestamp(seconds, 1), 0L, null);
    }

    /** A change to another collection, produced last: once it is applied, everything before it on the partition is. */
    private static ChangeEvent marker(String id) {
        return new ChangeEvent(Op.INSERT, MARKERS, new BsonString(id), new BsonDocument("_id", new BsonString(id)),
                new BsonTimestamp(1, 1), 0L, null);
    }

    private static void produceAndAwait(String topic, Namespace markersDest, List<ChangeEvent> changes, String markerId) {
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            for (ChangeEvent e : changes) {
                send(p, topic, 0, e, ValueFormat.BSON);
            }
            send(p, topic, 0, marker(markerId), ValueFormat.BSON);
            p.flush();
        }
        await("marker " + markerId + " applied", Duration.ofSeconds(90),
                () -> snapshot(destination.client(), markersDest).containsKey(new BsonString(markerId)));
    }

    @Test
    void olderChangeDoesNotOverwriteANewerDocumentAndALateDeleteDoesNotRemoveAReinsert() {
        String topic = "sink-it-stale";
        String connector = "sink-stale";
        Namespace dest = new Namespace("stale_dest", "orders");
        Namespace markersDest = new Namespace("stale_dest", "markers");
        stack.createTopic(topic, 1);
        stack.rest().putConnector(connector, sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.BSON));
        stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));

        // What the destination holds: doc 1 at t=200; doc 2 deleted at t=250 and re-inserted at t=300.
        produceAndAwait(topic, markersDest, List.of(
                change(Op.INSERT, 1, "newer", 200),
                change(Op.INSERT, 2, "first life", 240), change(Op.DELETE, 2, null, 250), change(Op.INSERT, 2, "re-inserted", 300)),
                "phase-1");
        // Late arrivals (a second path, a replay of an older segment): each older than what is held.
        produceAndAwait(topic, markersDest, List.of(
                change(Op.UPDATE, 1, "older update", 150),
                change(Op.REPLACE, 1, "older replace", 199),
                change(Op.DELETE, 2, null, 250),
                // inside one batch too: the newer change wins even when the older arrives after it
                change(Op.INSERT, 3, "newest", 500), change(Op.UPDATE, 3, "older in same batch", 400)),
                "phase-2");

        Map<BsonValue, RawBsonDocument> docs = snapshot(destination.client(), dest);
        System.out.printf("stale guard: 11 changes, 5 of them older than what the destination holds, destination: %s%n",
                docs.values().stream().map(RawBsonDocument::toJson).toList());
        assertThat(docs.get(new BsonInt32(1)).getString("name").getValue()).isEqualTo("newer");
        assertThat(docs.get(new BsonInt32(2)).getString("name").getValue()).isEqualTo("re-inserted");
        assertThat(docs.get(new BsonInt32(3)).getString("name").getValue()).isEqualTo("newest");
        assertThat(docs).hasSize(3);
        stack.rest().deleteConnector(connector);
    }
}
