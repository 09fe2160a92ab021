package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ValueFormat;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * tasks.max=2: each collection is captured by exactly one task (one tl.producer per collection, the
 * producers grouping the collections by the namespace hash the tasks share), and a collection created
 * while running is picked up by its task WITHOUT a reconfiguration: the task configs stay the same and
 * the tasks keep running (the same producers go on for the other collections, nothing is copied again).
 */
class SourceTaskSplitIT {
    private static final String DB = "split_it";
    private static final String CONNECTOR = "source-split-it";

    /** The owning task of a namespace, as the connector's tasks compute it (CRC-32 of the name, mod the count). */
    private static int owner(String coll, int tasks) {
        CRC32 crc = new CRC32();
        crc.update((DB + "." + coll).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return (int) (crc.getValue() % tasks);
    }

    @Test
    void twoTasksShareTheCollectionsAndANewCollectionIsPickedUpWithoutRestartingAnything() {
        TestStack stack = TestStack.shared();
        // collections picked so that each task owns two, and the new one goes to task 0
        List<String> colls = new ArrayList<>();
        String late = null;
        int[] perTask = new int[2];
        for (int i = 0; colls.size() < 4 || late == null; i++) {
            String c = "c" + i;
            int t = owner(c, 2);
            if (colls.size() < 4 && perTask[t] < 2) {
                colls.add(c);
                perTask[t]++;
            } else if (late == null && t == 0 && colls.size() == 4) {
                late = c;
            }
        }
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(DB);
            for (String c : colls) {
                database.getCollection(c).insertOne(new Document("_id", 0));
            }
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), DB, "split", ValueFormat.BSON, 2);
            config.put("collection.discovery.interval.ms", "1000");
            stack.rest().putConnector(CONNECTOR, config);
            try {
                stack.rest().awaitRunning(CONNECTOR, 2, Duration.ofSeconds(60));
                List<Map<String, String>> configsBefore = stack.rest().taskConfigs(CONNECTOR);
                for (String c : colls) {
                    for (int i = 1; i <= 5; i++) {
                        database.getCollection(c).insertOne(new Document("_id", i));
                    }
                }
                Map<String, String> producerOf = new TreeMap<>();
                for (String c : colls) {
                    producerOf.put(c, onlyProducer(stack, c, 6));
                }
                System.out.println("producer per collection: " + producerOf);
                assertThat(new HashSet<>(producerOf.values())).as("two tasks, each capturing its own collections").hasSize(2);
                for (String a : colls) {
                    for (String b : colls) {
                        assertThat(producerOf.get(a).equals(producerOf.get(b))).as(a + " and " + b + " on one task")
                                .isEqualTo(owner(a, 2) == owner(b, 2));
                    }
                }

                // created while running: its task finds it by itself; nothing is reconfigured or restarted
                for (int i = 1; i <= 3; i++) {
                    database.getCollection(late).insertOne(new Document("_id", i));
                }
                String lateProducer = onlyProducer(stack, late, 3);
                for (String c : colls) {
                    database.getCollection(c).insertOne(new Document("_id", 6));
                }
                Map<String, String> producerAfter = new TreeMap<>();
                for (String c : colls) {
                    producerAfter.put(c, onlyProducer(stack, c, 7));
                }
                List<Map<String, String>> configsAfter = stack.rest().taskConfigs(CONNECTOR);
                System.out.println("after " + late + " appeared: captured by producer " + lateProducer + "; producers " + producerAfter
                        + "; task configs unchanged: " + configsAfter.equals(configsBefore));
                assertThat(producerAfter).as("the same task runs: no restart").isEqualTo(producerOf);
                assertThat(lateProducer).isEqualTo(producerOf.get(colls.stream().filter(c -> owner(c, 2) == 0).findFirst().orElseThrow()));
                assertThat(configsAfter).isEqualTo(configsBefore);
                assertThat(configsAfter).allSatisfy(c -> assertThat(c).doesNotContainKey("tideline.task.collections"));
            } finally {
                stack.rest().deleteConnector(CONNECTOR);
            }
        }
    }

    /** Waits until {@code distinctIds} ids of the collection are on its topic; their records must come from one producer. */
    private static String onlyProducer(TestStack stack, String coll, int distinctIds) {
        String topic = "split." + DB + "." + coll;
        List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readUntil(stack.bootstrapServers(), topic,
                rs -> ids(rs).size() >= distinctIds, distinctIds + " distinct ids", Duration.ofSeconds(90));
        Set<String> producers = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (SourceItSupport.isChange(r)) {
                producers.add(SourceItSupport.header(r, EventHeaders.PRODUCER));
            }
        }
        assertThat(producers).as("producers of " + topic).hasSize(1);
        return producers.iterator().next();
    }

    private static Set<BsonValue> ids(List<ConsumerRecord<byte[], byte[]>> records) {
        Set<BsonValue> ids = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (SourceItSupport.isChange(r)) {
                ids.add(SourceItSupport.decode(r, true).id());
            }
        }
        return ids;
    }
}
