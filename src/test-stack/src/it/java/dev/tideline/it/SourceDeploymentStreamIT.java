package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.it.support.TestStack;
import dev.tideline.standin.MongoFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * {@code change.stream.scope=deployment} through a real worker: one change stream for a task that
 * reads many databases, each change of each of them on its own topic exactly once, a database
 * created after the start joining the same stream, and a database the connector excludes never
 * reaching a topic even though the deployment-wide stream sees its writes.
 */
class SourceDeploymentStreamIT {
    static final int DATABASES = 10;
    static final int COLLECTIONS = 3;
    static final String PREFIX = "deploy";
    static final String EXCLUDED = "dep_excluded";

    static String db(int i) {
        return "dep_" + i;
    }

    @Test
    void oneStreamCarriesEveryDatabaseOfTheTaskAndNothingElse() {
        TestStack stack = TestStack.shared();
        String connector = "source-deployment-it";
        try (MongoFixture mongo = MongoFixture.withOplog(); JmxReader jmx = new JmxReader(stack.jmxUrl(0));
             KafkaConsumer<byte[], byte[]> consumer = ScaleStack.consumer(stack.bootstrapServers(), "deploy\\..*")) {
            for (int d = 0; d < DATABASES; d++) {
                seed(mongo.client().getDatabase(db(d)));
            }
            seed(mongo.client().getDatabase(EXCLUDED));

            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), "dep_.*", PREFIX, ValueFormat.BSON, 1);
            config.put("database.exclude", EXCLUDED);
            config.put("change.stream.scope", "deployment");
            config.put("collection.discovery.interval.ms", "1000");
            config.put("heartbeat.interval.ms", "2000");
            stack.rest().putConnector(connector, config);
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "StreamedCollections", v -> ((Number) v).intValue() == DATABASES * COLLECTIONS,
                        Duration.ofMinutes(2));
                ScaleStack.awaitAttribute(jmx, task, "ChangeStreams", v -> ((Number) v).intValue() >= 1, Duration.ofSeconds(30));

                // a database created while the task runs joins the same stream
                String late = db(DATABASES);
                seed(mongo.client().getDatabase(late));
                ScaleStack.awaitAttribute(jmx, task, "StreamedCollections", v -> ((Number) v).intValue() == (DATABASES + 1) * COLLECTIONS,
                        Duration.ofMinutes(2));

                for (int d = 0; d <= DATABASES; d++) {
                    writeChanges(mongo.client().getDatabase(db(d)));
                }
                writeChanges(mongo.client().getDatabase(EXCLUDED));

                Map<String, List<String>> seen = new ConcurrentHashMap<>();
                List<String> excluded = new ArrayList<>();
                int expected = (DATABASES + 1) * COLLECTIONS;
                ScaleStack.readChanges(consumer, e -> {
                    if (e.ns().db().equals(EXCLUDED)) {
                        excluded.add(e.ns() + " " + e.op().wireName());
                    }
                    if (!e.id().isInt32() || e.id().asInt32().getValue() < 0) {
                        return; // the seed's copy
                    }
                    seen.computeIfAbsent(e.ns().db() + "." + e.ns().coll(), k -> new ArrayList<>())
                            .add(e.op().wireName() + ":" + e.id().asInt32().getValue());
                }, () -> seen.size() >= expected && seen.values().stream().allMatch(l -> l.size() >= 4),
                        "the 4 changes of each of " + expected + " collections", Duration.ofMinutes(3));
                // anything late (a duplicate, the excluded database's writes) would arrive within this
                long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                while (System.nanoTime() < until) {
                    for (var r : consumer.poll(Duration.ofMillis(200))) {
                        if (!ScaleStack.isChange(r)) {
                            continue;
                        }
                        var e = SourceItSupport.decode(r, true);
                        if (e.ns().db().equals(EXCLUDED)) {
                            excluded.add(e.ns() + " " + e.op().wireName());
                        } else if (e.id().isInt32() && e.id().asInt32().getValue() >= 0) {
                            seen.get(e.ns().db() + "." + e.ns().coll()).add(e.op().wireName() + ":" + e.id().asInt32().getValue());
                        }
                    }
                }

                int streams = ((Number) jmx.attribute(task, "ChangeStreams")).intValue();
                System.out.printf("DEPLOYMENT %d databases x %d collections in one task: change streams open %d, collections with "
                        + "their changes %d, records of the excluded database %d%n", DATABASES + 1, COLLECTIONS, streams, seen.size(),
                        excluded.size());
                for (int d = 0; d <= DATABASES; d++) {
                    for (int c = 0; c < COLLECTIONS; c++) {
                        String ns = db(d) + ".c" + c;
                        assertThat(seen.get(ns)).as(ns).containsExactly("insert:1", "insert:2", "update:1", "delete:2");
                    }
                }
                assertThat(seen).hasSize(expected);
                assertThat(excluded).as("records of the excluded database").isEmpty();
                assertThat(streams).as("change streams of a task reading %d databases", DATABASES + 1).isEqualTo(1);
                assertThat(ScaleStack.topics(stack.bootstrapServers())).noneMatch(t -> t.startsWith(PREFIX + "." + EXCLUDED));
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    private static void seed(MongoDatabase database) {
        for (int c = 0; c < COLLECTIONS; c++) {
            database.getCollection("c" + c).insertOne(new Document("_id", -1).append("seed", true));
        }
    }

    private static void writeChanges(MongoDatabase database) {
        for (int c = 0; c < COLLECTIONS; c++) {
            var coll = database.getCollection("c" + c);
            coll.insertOne(new Document("_id", 1).append("v", 0));
            coll.insertOne(new Document("_id", 2).append("v", 0));
            coll.updateOne(Filters.eq("_id", 1), Updates.set("v", 1));
            coll.deleteOne(Filters.eq("_id", 2));
        }
    }
}
