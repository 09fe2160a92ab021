package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * tasks.max=2 over 4 collections: each collection on exactly one task, shown both by the task configs
 * (REST) and by the records (one tl.producer per collection, the producers grouping the collections as
 * the configs do). A collection created while running is picked up and captured without a restart.
 */
class SourceTaskSplitIT {
    private static final String DB = "split_it";
    private static final String CONNECTOR = "source-split-it";

    @Test
    void twoTasksShareFourCollectionsEachOnOneTaskAndANewCollectionIsPickedUp() {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(DB);
            List<String> colls = List.of("c1", "c2", "c3", "c4");
            for (String c : colls) {
                database.getCollection(c).insertOne(new Document("_id", 0));
            }
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), DB, "split", ValueFormat.BSON, 2);
            config.put("collection.discovery.interval.ms", "1000");
            stack.rest().putConnector(CONNECTOR, config);
            try {
                stack.rest().awaitRunning(CONNECTOR, 2, Duration.ofSeconds(60));
                List<Set<String>> assigned = assignment(stack);
                System.out.println("task assignment: " + assigned);
                assertThat(assigned).hasSize(2).allSatisfy(group -> assertThat(group).hasSize(2));
                assertThat(union(assigned)).containsExactlyInAnyOrder("split_it.c1", "split_it.c2", "split_it.c3", "split_it.c4");

                for (String c : colls) {
                    for (int i = 1; i <= 5; i++) {
                        database.getCollection(c).insertOne(new Document("_id", i));
                    }
                }
                Map<String, String> producerOf = new TreeMap<>();
                for (String c : colls) {
                    producerOf.put(DB + "." + c, onlyProducer(stack, c, 6));
                }
                System.out.println("producer per collection: " + producerOf);
                assertThat(new HashSet<>(producerOf.values())).hasSize(2);
                for (Set<String> group : assigned) {
                    Set<String> producers = new HashSet<>();
                    group.forEach(ns -> producers.add(producerOf.get(ns)));
                    assertThat(producers).as("collections of one task share its producer").hasSize(1);
                }

                // created while running: the monitor notices, Connect reconfigures the tasks
                for (int i = 1; i <= 3; i++) {
                    database.getCollection("c5").insertOne(new Document("_id", i));
                }
                onlyProducer(stack, "c5", 3);
                database.getCollection("c5").insertOne(new Document("_id", 4));
                String c5Producer = onlyProducer(stack, "c5", 4);
                List<Set<String>> after = assignment(stack);
                System.out.println("task assignment after c5 appeared: " + after + ", c5 captured by producer " + c5Producer);
                assertThat(after).hasSize(2);
                assertThat(after.get(0)).doesNotContainAnyElementsOf(after.get(1));
                assertThat(union(after)).containsExactlyInAnyOrder("split_it.c1", "split_it.c2", "split_it.c3", "split_it.c4", "split_it.c5");
            } finally {
                stack.rest().deleteConnector(CONNECTOR);
            }
        }
    }

    /** The collections each task owns, from GET /connectors/x/tasks. */
    private static List<Set<String>> assignment(TestStack stack) {
        List<Set<String>> out = new ArrayList<>();
        for (Map<String, String> task : stack.rest().taskConfigs(CONNECTOR)) {
            Set<String> names = new TreeSet<>();
            for (BsonValue v : BsonDocument.parse(task.get("tideline.task.collections")).getArray("c")) {
                names.add(v.asString().getValue());
            }
            out.add(names);
        }
        return out;
    }

    private static Set<String> union(List<Set<String>> groups) {
        Set<String> all = new HashSet<>();
        groups.forEach(all::addAll);
        return all;
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
