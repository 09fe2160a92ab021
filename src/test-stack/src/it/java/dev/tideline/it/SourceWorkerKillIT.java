package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of the worker while the source streams, writes going on all along, then a restart: every
 * change written is on the topic, and a change that appears more than once is an identical replay
 * (same op, _id, cluster time and the same value bytes).
 */
class SourceWorkerKillIT {
    private static final String DB = "kill_it";
    private static final String CONNECTOR = "source-kill-it";
    private static final String TOPIC = "killit." + DB + ".events";

    /** One write the test made: what must arrive, at least once. */
    private record Write(Op op, int id) {
    }

    @Test
    void everyChangeArrivesAfterAKillAndDuplicatesAreIdenticalReplays() throws Exception {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            mongo.client().getDatabase(DB).createCollection("events"); // empty: every change on the topic is one this test wrote
            MongoCollection<Document> events = mongo.client().getDatabase(DB).getCollection("events");
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), DB, "killit", ValueFormat.BSON, 1);
            config.put("initial.sync", "skip");
            stack.rest().putConnector(CONNECTOR, config);
            List<Write> written = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = new Thread(() -> write(events, written, writing), "kill-it-writer");
            try {
                stack.rest().awaitRunning(CONNECTOR, 1, Duration.ofSeconds(60));
                writer.start();
                TopicReader.readUntil(stack.bootstrapServers(), TOPIC, 500, Duration.ofSeconds(90));
                // mid-stream: the worker has committed a resume token (offsets flush every second). A kill
                // before a task's first commit is SkipStartKillFaultIT's case (the start kept in the source).
                stack.rest().awaitCommittedToken(CONNECTOR, new Namespace(DB, "events"), Duration.ofSeconds(60));
                stack.killWorker();
                int writtenAtKill = written.size();
                int onTopicAtKill = TopicReader.readUntil(stack.bootstrapServers(), TOPIC, rs -> rs.size() >= 500, "records", Duration.ofSeconds(30)).size();
                stack.startWorker();
                stack.rest().awaitRunning(CONNECTOR, 1, Duration.ofSeconds(120));
                TopicReader.readUntil(stack.bootstrapServers(), TOPIC, onTopicAtKill + 300, Duration.ofSeconds(90));
                writing.set(false);
                writer.join(30_000);
                List<Write> expected = List.copyOf(written);

                List<ConsumerRecord<byte[], byte[]>> records = awaitAll(stack, expected);
                Map<String, List<byte[]>> byChange = new HashMap<>();
                Map<Write, Integer> firstPosition = new HashMap<>();
                int changes = 0;
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (!SourceItSupport.isChange(r)) {
                        continue;
                    }
                    ChangeEvent e = SourceItSupport.decode(r, true);
                    byChange.computeIfAbsent(e.op() + "/" + e.id() + "/" + e.clusterTime(), k -> new ArrayList<>()).add(r.value());
                    firstPosition.putIfAbsent(new Write(e.op(), e.id().asInt32().getValue()), changes++);
                }
                int duplicates = changes - byChange.size();
                long replayedChanges = byChange.values().stream().filter(v -> v.size() > 1).count();
                System.out.printf("kill -9 mid-stream: %d writes (%d before the kill, %d change records on the topic then), "
                                + "%d change records after the restart, %d distinct changes, %d duplicates (%d changes replayed)%n",
                        expected.size(), writtenAtKill, onTopicAtKill, changes, byChange.size(), duplicates, replayedChanges);

                assertThat(onTopicAtKill).as("killed mid-stream").isLessThan(expected.size());
                assertThat(firstPosition.keySet()).as("every write arrived, nothing else").isEqualTo(new HashSet<>(expected));
                assertThat(byChange).hasSize(expected.size()); // one cluster time per write
                byChange.forEach((change, copies) -> assertThat(copies)
                        .as("copies of %s", change).allSatisfy(v -> assertThat(Arrays.equals(v, copies.get(0))).isTrue()));
                for (Write w : expected) {
                    if (w.op() != Op.INSERT) {
                        assertThat(firstPosition.get(w)).as("%s after the insert", w).isGreaterThan(firstPosition.get(new Write(Op.INSERT, w.id())));
                    }
                }
            } finally {
                writing.set(false);
                writer.join(30_000);
                stack.rest().deleteConnector(CONNECTOR);
            }
        }
    }

    /**
     * Inserts ids 1, 2, ...; 20 ids behind, updates each id once (4 in 5) or deletes it (1 in 5). Every id
     * is written to at most twice, so a replayed update's looked-up document is the one first sent.
     */
    private static void write(MongoCollection<Document> events, List<Write> written, AtomicBoolean writing) {
        for (int i = 1; writing.get(); i++) {
            events.insertOne(new Document("_id", i).append("v", 0).append("pad", "x".repeat(100)));
            written.add(new Write(Op.INSERT, i));
            int old = i - 20;
            if (old > 0 && old % 5 == 0) {
                events.deleteOne(Filters.eq("_id", old));
                written.add(new Write(Op.DELETE, old));
            } else if (old > 0) {
                events.updateOne(Filters.eq("_id", old), Updates.set("v", 1));
                written.add(new Write(Op.UPDATE, old));
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> awaitAll(TestStack stack, List<Write> expected) {
        Set<Write> wanted = new HashSet<>(expected);
        return TopicReader.readUntil(stack.bootstrapServers(), TOPIC, records -> {
            Set<Write> seen = new HashSet<>();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                if (SourceItSupport.isChange(r)) {
                    ChangeEvent e = SourceItSupport.decode(r, true);
                    seen.add(new Write(e.op(), e.id().asInt32().getValue()));
                }
            }
            return seen.containsAll(wanted);
        }, "all " + wanted.size() + " writes", Duration.ofSeconds(120));
    }

}
