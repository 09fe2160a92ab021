package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static dev.tideline.it.SinkItSupport.byteDifferences;
import static dev.tideline.it.SinkItSupport.send;
import static dev.tideline.it.SinkItSupport.sinkConfig;
import static dev.tideline.it.SinkItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.SinkItSupport.Workload;
import dev.tideline.it.support.ClassMongo;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** kill -9 of the worker in the middle of applying, then a restart: the destination converges, nothing lost. */
class SinkCrashIT {
    private static final TestStack stack = TestStack.shared();
    @RegisterExtension
    static final ClassMongo destination = new ClassMongo();

    @Test
    void destinationConvergesAfterTheWorkerIsKilledMidBatch() {
        String topic = "sink-it-crash";
        String connector = "sink-crash";
        Namespace source = new Namespace("shop", "orders");
        Namespace dest = new Namespace("crash_dest", "orders");
        stack.createTopic(topic, 3);
        Workload w = Workload.generate(source, 20_000, 4_000, 3); // the kill lands at 500 versions: most of it still to apply
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            for (ChangeEvent e : w.changes()) {
                send(p, topic, null, e, ValueFormat.BSON);
            }
            p.flush();
        }

        Map<String, String> config = sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.BSON);
        config.put("consumer.override.max.poll.records", "200"); // many small batches: the kill lands inside one
        stack.rest().putConnector(connector, config);
        var versions = destination.client().getDatabase(dest.db()).getCollection("_tideline_versions");
        await("the sink under way", Duration.ofSeconds(90), () -> versions.countDocuments() >= 500);

        stack.killWorker();
        long versionsAtKill = versions.countDocuments();
        int docsAtKill = snapshot(destination.client(), dest).size();
        int diffsAtKill = byteDifferences(w.expected(), snapshot(destination.client(), dest)).size();
        stack.startWorker();
        stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(90));
        long restarted = System.nanoTime();
        await("convergence after the restart", Duration.ofMinutes(4),
                () -> byteDifferences(w.expected(), snapshot(destination.client(), dest)).isEmpty());

        System.out.printf("crash: %s; at kill -9: %d documents, %d versions, %d documents still differing; "
                        + "converged byte-identical %d ms after the restart%n", w.summary(), docsAtKill, versionsAtKill,
                diffsAtKill, Duration.ofNanos(System.nanoTime() - restarted).toMillis());
        assertThat(diffsAtKill).as("the kill happened before the sink had finished").isPositive();
        assertThat(byteDifferences(w.expected(), snapshot(destination.client(), dest))).isEmpty();
        stack.rest().deleteConnector(connector);
    }
}
