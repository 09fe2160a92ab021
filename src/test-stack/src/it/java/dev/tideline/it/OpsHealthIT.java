package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Metrics and health through JMX of the real worker JVM, while a source and a sink run: backfill
 * progress, events, cluster time and lag, records applied; then the source server goes away and the
 * source task's health turns {@code down} with the reason, in JMX and in the worker log.
 */
class OpsHealthIT {
    private static final String SOURCE = "ops-health-source";
    private static final String SINK = "ops-health-sink";
    private static final int EXISTING = 300;
    private static final int STREAMED = 50;

    @Test
    void metricsAndHealthAreReadableThroughJmx() throws Exception {
        TestStack stack = TestStack.shared();
        String db = "ops_health";
        String topic = "opsh." + db + ".orders";
        String sourceTask = "dev.tideline:type=source-task,connector=" + SOURCE + ",task=0";
        String orders = sourceTask + ",collection=" + db + ".orders";
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog();
             JmxReader jmx = new JmxReader(stack.jmxUrl(0))) {
            // the sink's bean names what it writes to: the destination's hosts and database, no credentials
            String sinkTask = "dev.tideline:type=sink-task,connector=" + SINK + ",task=0,destination="
                    + javax.management.ObjectName.quote(dev.tideline.mongo.MongoClientFactory.hostsOf(destination.uri()) + "/ops_health_copy");
            MongoCollection<Document> coll = source.client().getDatabase(db).getCollection("orders");
            List<Document> existing = new ArrayList<>();
            for (int i = 0; i < EXISTING; i++) {
                existing.add(new Document("_id", i).append("v", 0));
            }
            coll.insertMany(existing);
            Map<String, String> sourceConfig = SourceItSupport.sourceConfig(source.uri(), db, "opsh", ValueFormat.JSON, 1);
            sourceConfig.put("batch.size", "50");
            sourceConfig.put("mongodb.connect.timeout.ms", "2000");
            sourceConfig.put("health.state.database", db); // the optional state document, for dashboards
            sourceConfig.put("health.state.interval.ms", "1000");
            stack.rest().putConnector(SOURCE, sourceConfig);
            stack.rest().putConnector(SINK, SinkItSupport.sinkConfig(topic, destination.uri(), "ops_health_copy", ValueFormat.JSON));
            try {
                stack.rest().awaitRunning(SOURCE, 1, Duration.ofSeconds(60));
                stack.rest().awaitRunning(SINK, 1, Duration.ofSeconds(60));
                SinkItSupport.await("the backfill to be copied and streaming to start", Duration.ofSeconds(60),
                        () -> "stream".equals(jmx.attribute(orders, "Phase")));
                assertThat(jmx.longAttribute(orders, "BackfillCopied")).isEqualTo(EXISTING);
                assertThat(jmx.longAttribute(orders, "BackfillEstimatedTotal")).isEqualTo(EXISTING);
                assertThat(jmx.longAttribute(orders, "BackfillEtaSeconds")).isZero();
                assertThat((Double) jmx.attribute(orders, "BackfillDocsPerSecond")).isPositive();

                for (int i = 0; i < STREAMED; i++) {
                    coll.insertOne(new Document("_id", "s" + i).append("v", 1));
                }
                SinkItSupport.await("streamed changes counted by the source", Duration.ofSeconds(60),
                        () -> jmx.longAttribute(orders, "Events") >= EXISTING + STREAMED);
                SinkItSupport.await("every record applied by the sink", Duration.ofSeconds(90),
                        () -> jmx.longAttribute(sinkTask, "RecordsApplied") >= EXISTING + STREAMED);

                String clusterTime = (String) jmx.attribute(orders, "LastEventClusterTime");
                long lag = jmx.longAttribute(orders, "LagMillis");
                double rate = (Double) jmx.attribute(sourceTask, "EventsPerSecond");
                long applied = jmx.longAttribute(sinkTask, "RecordsApplied");
                long sinkLag = jmx.longAttribute(sinkTask, "LagMillis");
                System.out.printf("source: events %d, %.1f events/s (10 s window), last cluster time %s, lag %d ms, heartbeats %d; "
                                + "sink: applied %d, %.1f records/s, last event %s, lag %d ms, retries %d, DLQ %d%n",
                        jmx.longAttribute(sourceTask, "Events"), rate, clusterTime, lag, jmx.longAttribute(orders, "Heartbeats"),
                        applied, (Double) jmx.attribute(sinkTask, "RecordsAppliedPerSecond"),
                        jmx.attribute(sinkTask, "LastAppliedEventTime"), sinkLag, jmx.longAttribute(sinkTask, "Retries"),
                        jmx.longAttribute(sinkTask, "DeadLetterRecords"));
                assertThat(clusterTime).isNotEmpty();
                assertThat(lag).isBetween(0L, Duration.ofMinutes(5).toMillis());
                assertThat(sinkLag).isBetween(0L, Duration.ofMinutes(5).toMillis());
                assertThat(jmx.attribute(sinkTask, "LastAppliedEventTime")).asString().isNotEmpty();
                assertThat(jmx.attribute(sourceTask, "Health")).isEqualTo("ok");
                assertThat(jmx.attribute(sinkTask, "Health")).isEqualTo("ok");
                assertThat((String[]) jmx.attribute(sourceTask, "Collections")).containsExactly(db + ".orders");
                // the counters can run ahead of the last documents (a CI run counted 650 source events for 350 documents):
                // the destination is checked by content, with a deadline
                SinkItSupport.await("every document at the destination", Duration.ofSeconds(60),
                        () -> destination.client().getDatabase("ops_health_copy").getCollection("orders").countDocuments()
                                == EXISTING + STREAMED);

                MongoCollection<Document> states = source.client().getDatabase(db).getCollection("_tideline_state");
                SinkItSupport.await("the state document to show the streamed changes", Duration.ofSeconds(30), () -> {
                    Document state = states.find(new Document("_id", SOURCE + "/0")).first();
                    // the list is empty until the task's first report after its collections are registered
                    return state != null && !state.getList("collections", Document.class).isEmpty()
                            && state.getList("collections", Document.class).get(0).get("events", Number.class).longValue()
                            >= EXISTING + STREAMED;
                });
                Document state = states.find(new Document("_id", SOURCE + "/0")).first();
                System.out.println("state document: " + state.toJson());
                assertThat(state.getString("health")).isEqualTo("ok");
                assertThat(state.get("pid", Number.class).longValue()).isPositive();
                assertThat(state.getString("host")).isNotEmpty();
                Document ordersState = state.getList("collections", Document.class).get(0);
                assertThat(ordersState.getString("ns")).isEqualTo(db + ".orders");
                assertThat(ordersState.getString("phase")).isEqualTo("stream");
                assertThat(ordersState.get("position", Document.class).getString("phase")).isEqualTo("stream");

                long stopped = System.nanoTime();
                assertThat(source.servers()).as("needs the in-process stand-in to stop it").isNotEmpty();
                source.servers().forEach(de.bwaldvogel.mongo.MongoServer::shutdownNow); // every member: the source is gone
                SinkItSupport.await("source health down", Duration.ofSeconds(60),
                        () -> "down".equals(jmx.attribute(sourceTask, "Health")));
                String[] reasons = (String[]) jmx.attribute(sourceTask, "HealthReasons");
                System.out.printf("source server stopped: health down after %d ms, reasons %s, retries %d%n",
                        Duration.ofNanos(System.nanoTime() - stopped).toMillis(), Arrays.toString(reasons),
                        jmx.longAttribute(sourceTask, "Retries"));
                // the database's change stream reads every collection: one reason for it (and, when the collections are
                // listed again meanwhile, one for that)
                assertThat(reasons).contains("change stream of " + db + ": source-unreachable")
                        .allMatch(r -> r.endsWith(": source-unreachable"));
                assertThat(jmx.attribute(orders, "Health")).isEqualTo("down");
                assertThat((String[]) jmx.attribute(orders, "HealthReasons")).contains("change stream of " + db + ": source-unreachable");
                assertThat(jmx.attribute(sinkTask, "Health")).isEqualTo("ok");
                Path log = stack.workDir().resolve("worker-0").resolve("worker-0.log");
                SinkItSupport.await("the health change in the worker log", Duration.ofSeconds(10), () -> {
                    try {
                        return Files.readString(log).contains("Health of source task " + SOURCE + "-0: down (change stream of " + db
                                + ": source-unreachable");
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            } finally {
                stack.rest().deleteConnector(SOURCE);
                stack.rest().deleteConnector(SINK);
            }
            SinkItSupport.await("the task MBeans unregistered after the connectors are deleted", Duration.ofSeconds(60),
                    () -> jmx.names("dev.tideline:connector=" + SOURCE + ",*").isEmpty()
                            && jmx.names("dev.tideline:connector=" + SINK + ",*").isEmpty());
        }
    }
}
