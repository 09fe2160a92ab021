package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.standin.MongoFixture;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Two transactions across four collections read by two tasks, the tasks restarted between them, through the real
 * worker and the built plugin: every change of a transaction carries the same {@code tl.txn} and cluster time on
 * every topic, nothing is lost, and what a restart repeats is at most the first transaction's changes of a collection.
 * Each change carries its operation's index in its transaction ({@code tl.txn.op}, the sink's tie-break between
 * versions of one cluster time), read from the stand-in's resume tokens, which write {@code txnOpIndex} as MongoDB 7.0.
 */
class SourceTransactionsIT {
    private static final String CONNECTOR = "source-txn-it";
    private static final List<String> COLLECTIONS = List.of("c0", "c1", "c2", "c3");

    @Test
    void aTransactionsChangesShareTheirIdentityAcrossTopicsAndTasksAndSurviveARestart() throws Exception {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            String db = "txn_it";
            MongoDatabase database = mongo.client().getDatabase(db);
            for (String c : COLLECTIONS) {
                database.getCollection(c).insertOne(new Document("_id", "seed")); // backfilled: the stream is open behind it
            }
            stack.rest().putConnector(CONNECTOR, SourceItSupport.sourceConfig(mongo.uri(), db, "txit", ValueFormat.BSON, 2));
            try {
                stack.rest().awaitRunning(CONNECTOR, 2, Duration.ofSeconds(60));
                for (String c : COLLECTIONS) {
                    TopicReader.readUntil(stack.bootstrapServers(), "txit." + db + "." + c, 1, Duration.ofSeconds(60));
                }
                try (ClientSession session = mongo.client().startSession()) {
                    session.withTransaction(() -> {
                        for (int i = 1; i <= 3; i++) {
                            for (String c : COLLECTIONS) {
                                database.getCollection(c).insertOne(session, new Document("_id", i).append("v", 1));
                            }
                        }
                        return null;
                    });
                    for (String c : COLLECTIONS) {
                        TopicReader.readUntil(stack.bootstrapServers(), "txit." + db + "." + c, 4, Duration.ofSeconds(60));
                    }
                    stack.rest().restartConnector(CONNECTOR, true);
                    stack.rest().awaitRunning(CONNECTOR, 2, Duration.ofSeconds(60));
                    session.withTransaction(() -> {
                        for (String c : COLLECTIONS) {
                            database.getCollection(c).updateOne(session, Filters.eq("_id", 1), Updates.set("v", 2));
                            database.getCollection(c).deleteOne(session, Filters.eq("_id", 2));
                        }
                        return null;
                    });
                }
                Map<String, Set<BsonTimestamp>> timesPerTransaction = new HashMap<>();
                Map<String, Set<Integer>> opsPerTransaction = new HashMap<>();
                int duplicates = 0;
                for (String c : COLLECTIONS) {
                    String topic = "txit." + db + "." + c;
                    List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readUntil(stack.bootstrapServers(), topic,
                            rs -> SourceItSupport.changes(rs, true).stream().anyMatch(ChangeEvent::isDelete), "the second transaction's delete",
                            Duration.ofSeconds(90));
                    List<String> seen = new java.util.ArrayList<>();
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        if (!SourceItSupport.isChange(r)) {
                            continue;
                        }
                        ChangeEvent e = SourceItSupport.decode(r, true);
                        String txn = SourceItSupport.header(r, EventHeaders.TRANSACTION);
                        if (e.id().isString()) {
                            assertThat(txn).as("the copied seed").isNull();
                            continue;
                        }
                        assertThat(txn).as("%s %s on %s", e.op(), e.id(), topic).isNotNull().matches("[0-9a-f-]{36}:\\d+");
                        timesPerTransaction.computeIfAbsent(txn, t -> new HashSet<>()).add(e.clusterTime());
                        // the first transaction inserted _id 1..3 into c0..c3 in turn; the second updated then deleted in each
                        int coll = COLLECTIONS.indexOf(c);
                        int expectedOp = switch (e.op()) {
                            case INSERT -> (e.id().asInt32().getValue() - 1) * COLLECTIONS.size() + coll;
                            case UPDATE -> 2 * coll;
                            default -> 2 * coll + 1;
                        };
                        assertThat(SourceItSupport.header(r, EventHeaders.TRANSACTION_OP)).as("%s %s on %s: its txnOpIndex", e.op(), e.id(), topic)
                                .isEqualTo(Integer.toString(expectedOp));
                        opsPerTransaction.computeIfAbsent(txn, t -> new HashSet<>()).add(expectedOp);
                        seen.add(txn + " " + e.op() + " " + e.id().asInt32().getValue());
                    }
                    Set<String> distinct = new HashSet<>(seen);
                    assertThat(distinct).as(topic + ": 3 inserts, then an update and a delete").hasSize(5);
                    int repeated = seen.size() - distinct.size();
                    assertThat(repeated).as(topic + ": a restart repeats at most the first transaction's 3 changes").isLessThanOrEqualTo(3);
                    duplicates += repeated;
                }
                System.out.printf("SourceTransactionsIT: 2 transactions, 20 changes on 4 topics, %d repeated after the restart%n", duplicates);
                assertThat(timesPerTransaction).hasSize(2);
                assertThat(opsPerTransaction.values()).extracting(Set::size).as("12 inserts, then 4 updates and 4 deletes")
                        .containsExactlyInAnyOrder(12, 8);
                assertThat(timesPerTransaction.values()).as("one cluster time per transaction").allSatisfy(t -> assertThat(t).hasSize(1));
            } finally {
                stack.rest().deleteConnector(CONNECTOR);
            }
        }
    }
}
