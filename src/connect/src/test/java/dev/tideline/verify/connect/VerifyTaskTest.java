package dev.tideline.verify.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.source.TaskContexts;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduled task outside a worker: runs on time, reports records and health, and resumes its schedule from offsets. */
class VerifyTaskTest {
    @TempDir
    java.nio.file.Path dir;

    private static SourceTaskContext context(Map<String, Object> storedOffset) {
        return TaskContexts.withOffset(storedOffset);
    }

    private static List<SourceRecord> pollUntilSummary(VerifyTask task, long timeoutMs) throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            List<SourceRecord> got = task.poll();
            if (got != null) {
                out.addAll(got);
                if (got.stream().anyMatch(r -> ((String) r.value()).startsWith("{\"type\":\"summary\""))) {
                    return out;
                }
            }
        }
        throw new AssertionError("no summary within " + timeoutMs + " ms; got " + out.size() + " records");
    }

    /** The run's thread updates the figures right after its last line, which poll() may hand over first. */
    private static void awaitRuns(MBeanServer jmx, ObjectName name, long runs) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while ((Long) jmx.getAttribute(name, "Runs") < runs) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("run " + runs + " not counted");
            }
            Thread.sleep(20);
        }
    }

    @Test
    void runsOnScheduleAndReportsThroughRecordsAndJmx() throws Exception {
        MongoServer a = new MongoServer(new AwaitingMemoryBackend());
        MongoServer b = new MongoServer(new AwaitingMemoryBackend());
        a.bind("127.0.0.1", 0);
        b.bind("127.0.0.1", 0);
        String src = "mongodb://127.0.0.1:" + a.getLocalAddress().getPort();
        String dst = "mongodb://127.0.0.1:" + b.getLocalAddress().getPort();
        VerifyTask task = new VerifyTask();
        try (MongoClient ca = MongoClients.create(src); MongoClient cb = MongoClients.create(dst)) {
            for (int i = 0; i < 50; i++) {
                ca.getDatabase("shop").getCollection("orders", BsonDocument.class).insertOne(new BsonDocument("_id", new BsonInt32(i)));
                cb.getDatabase("shop").getCollection("orders", BsonDocument.class).insertOne(new BsonDocument("_id", new BsonInt32(i)));
            }
            cb.getDatabase("shop").getCollection("orders").deleteOne(Filters.eq("_id", 7));
            Map<String, String> props = new HashMap<>();
            props.put("name", "nightly-check");
            props.put(VerifyConfig.SOURCE_URI, src);
            props.put(VerifyConfig.DESTINATION_URI, dst);
            props.put(VerifyConfig.DATABASES, "shop");
            props.put(VerifyConfig.RECHECK_DELAY_MS, "50");
            props.put(VerifyConfig.INTERVAL_MS, "2000");
            props.put(VerifyConfig.REPORT_TOPIC, "checks");
            props.put(VerifyConfig.SPOOL_DIR, dir.toString());
            task.initialize(context(null));
            task.start(props);

            List<SourceRecord> first = pollUntilSummary(task, 30_000);
            assertThat(first).allMatch(r -> r.topic().equals("checks"));
            assertThat(first.stream().map(r -> (String) r.value())).anyMatch(v -> v.equals(
                    "{\"type\":\"missing\",\"ns\":\"shop.orders\",\"to\":\"shop.orders\",\"_id\":{\"$numberInt\": \"7\"}}"));
            SourceRecord summary = first.get(first.size() - 1);
            assertThat(summary.sourceOffset().get("finished")).isEqualTo(true);
            assertThat(first.get(0).sourceOffset().get("finished")).isEqualTo(false);
            assertThat(first.stream().filter(r -> "shop.orders".equals(r.key()))).isNotEmpty();

            MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("dev.tideline:type=verify-task,connector=nightly-check,task=0");
            awaitRuns(jmx, name, 1);
            assertThat(jmx.getAttribute(name, "Health")).isEqualTo("degraded");
            assertThat((String[]) jmx.getAttribute(name, "HealthReasons"))
                    .containsExactly("shop.orders: differs (1 missing, 0 extra, 0 different)");
            assertThat(jmx.getAttribute(name, "LastOutcome")).isEqualTo("differs");
            assertThat(jmx.getAttribute(name, "LastMissing")).isEqualTo(1L);
            assertThat(jmx.getAttribute(name, "LastDocuments")).isEqualTo(99L);
            assertThat(jmx.getAttribute(name, "Runs")).isEqualTo(1L);
            java.time.Instant firstStart = java.time.Instant.parse((String) jmx.getAttribute(name, "LastRunStart"));

            // repaired by hand: the next run, one interval after the first one's start, is back to ok
            cb.getDatabase("shop").getCollection("orders", BsonDocument.class).insertOne(new BsonDocument("_id", new BsonInt32(7)));
            pollUntilSummary(task, 30_000);
            awaitRuns(jmx, name, 2);
            assertThat(jmx.getAttribute(name, "Health")).isEqualTo("ok");
            assertThat(jmx.getAttribute(name, "Runs")).isEqualTo(2L);
            java.time.Instant secondStart = java.time.Instant.parse((String) jmx.getAttribute(name, "LastRunStart"));
            assertThat(java.time.Duration.between(firstStart, secondStart).toMillis()).as("one interval from start to start")
                    .isGreaterThanOrEqualTo(2_000);
            task.stop();
            assertThat(jmx.isRegistered(name)).as("unregistered on stop").isFalse();

            // a restart with a finished run stored waits for the next due time; one cut short runs at once
            VerifyTask later = new VerifyTask();
            later.initialize(context(new VerifySchedule(System.currentTimeMillis(), true).toMap()));
            later.start(props);
            assertThat(jmx.getAttribute(name, "NextRunAt").toString()).isNotEmpty();
            assertThat(later.poll()).isNull();
            assertThat(jmx.getAttribute(name, "RunInProgress")).isEqualTo(false);
            later.stop();
            VerifyTask cutShort = new VerifyTask();
            cutShort.initialize(context(new VerifySchedule(System.currentTimeMillis(), false).toMap()));
            cutShort.start(props);
            assertThat(pollUntilSummary(cutShort, 30_000)).isNotEmpty();
            cutShort.stop();
        } finally {
            task.stop();
            a.shutdownNow();
            b.shutdownNow();
        }
    }
}
