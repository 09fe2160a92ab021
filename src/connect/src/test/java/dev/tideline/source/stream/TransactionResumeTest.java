package dev.tideline.source.stream;

import static dev.tideline.source.stream.DatabaseStreamTest.await;
import static dev.tideline.source.stream.DatabaseStreamTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.source.RecordFactory;
import dev.tideline.source.RecordState;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.capture.TxnOpIndex;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Collections positioned in the middle of a multi-document transaction's events, which all share the commit's cluster
 * time (https://www.mongodb.com/docs/manual/reference/change-events/) and differ only in their resume tokens: each
 * collection gets exactly the events after its position, whether the collections share one stream (one task) or
 * have a stream each (two tasks), and whether the position is an event of its own collection or of another. The
 * ordering within one cluster time is {@link StreamPosition#covers}'s tie-break on the tokens. Each change's record
 * carries the operation's index in the transaction ({@code tl.txn.op}, the sink's tie-break between versions of one
 * cluster time) read from the stand-in's token, which writes {@code txnOpIndex} where MongoDB 7.0 does.
 */
class TransactionResumeTest {
    private static final String DB = "txr";

    private MongoFixture mongo;
    private MongoDatabase db;
    private final List<DatabaseStream> streams = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /** The transaction's six events, a1 b1 a2 b2 a3 b3, as a database stream gives them. */
    private List<ChangeStreamDocument<Document>> events;
    private String transaction;

    @BeforeEach
    void commitATransactionAcrossTwoCollections() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        db = mongo.client().getDatabase(DB);
        db.getCollection("a").insertOne(new Document("_id", 0));
        db.getCollection("b").insertOne(new Document("_id", 0));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = db.watch().cursor();
             ClientSession session = mongo.client().startSession()) {
            session.withTransaction(() -> {
                for (int i = 1; i <= 3; i++) {
                    db.getCollection("a").insertOne(session, new Document("_id", i));
                    db.getCollection("b").insertOne(session, new Document("_id", i));
                }
                return null;
            });
            events = new ArrayList<>();
            while (events.size() < 6) {
                ChangeStreamDocument<Document> e = cursor.tryNext();
                if (e != null) {
                    events.add(e);
                }
            }
            BsonBinary id = session.getServerSession().getIdentifier().getBinary("id");
            transaction = id.asUuid() + ":" + session.getServerSession().getTransactionNumber();
        }
        assertThat(events).extracting(e -> e.getClusterTime()).containsOnly(events.get(0).getClusterTime());
        for (int i = 0; i < events.size(); i++) {
            assertThat(TxnOpIndex.of(events.get(i).getResumeToken())).as("event %d's token", i).hasValue(i);
        }
    }

    /** The {@code tl.txn.op} headers of the records the source makes of {@code coll}'s changes, in order. */
    private static List<String> txnOpHeaders(String coll, List<Captured.Change> changes) {
        RecordFactory factory = new RecordFactory(new Namespace(DB, coll), "t." + DB + "." + coll, "t.heartbeats", "t.control",
                ValueFormat.BSON, "", false, "p1");
        RecordState state = new RecordState(RepairProgress.NONE);
        List<SourceRecord> records = new ArrayList<>();
        changes.forEach(c -> factory.append(c, state, records));
        List<String> headers = new ArrayList<>();
        for (SourceRecord r : records) {
            Header h = r.headers().lastWithName(EventHeaders.TRANSACTION_OP);
            headers.add(h == null ? null : String.valueOf(h.value()));
        }
        return headers;
    }

    @AfterEach
    void stop() throws InterruptedException {
        streams.forEach(DatabaseStream::stop);
        for (Thread t : threads) {
            t.join(5_000);
        }
        mongo.close();
    }

    private DatabaseStreamTest.Recorder stream() {
        DatabaseStreamTest.Recorder out = new DatabaseStreamTest.Recorder(DB);
        DatabaseStream stream = new DatabaseStream(DB, db, new DatabaseStream.Settings(100, 200, 0, true, LargeEventPolicy.PARK, false), out);
        Thread thread = new Thread(stream, "txn-stream-" + streams.size());
        thread.setDaemon(true);
        thread.start();
        streams.add(stream);
        threads.add(thread);
        return out;
    }

    private StreamPosition after(int event) {
        return StreamPosition.afterToken(events.get(event).getResumeToken(), events.get(event).getClusterTime());
    }

    @Test
    void collectionsOfOneStreamPositionedInsideTheTransactionGetExactlyTheEventsAfterTheirPositions() throws Exception {
        DatabaseStreamTest.Recorder out = stream();
        DatabaseStream stream = streams.get(0);
        stream.join(out.handle("a"), new BsonDocument(), after(1), false); // after b1, another collection's event: a2, a3 are due
        stream.join(out.handle("b"), new BsonDocument(), after(2), false); // after a2: b2, b3 are due
        await("a2, a3, b2, b3", () -> out.changes("a").size() >= 2 && out.changes("b").size() >= 2);
        Thread.sleep(300);
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(2, 3);
        assertThat(ids(out.changes("b"), c -> true)).containsExactly(2, 3);
        assertThat(out.changes("a")).extracting(Captured.Change::transaction).containsOnly(transaction);
        assertThat(out.changes("b")).extracting(Captured.Change::transaction).containsOnly(transaction);
        // a1 b1 a2 b2 a3 b3 are operations 0 to 5 of the transaction
        assertThat(txnOpHeaders("a", out.changes("a"))).containsExactly("2", "4");
        assertThat(txnOpHeaders("b", out.changes("b"))).containsExactly("3", "5");
        assertThat(out.failures).isEmpty();
    }

    @Test
    void collectionsOfTwoTasksResumedFromTheirLastRecordsOffsetInsideTheTransactionLoseAndRepeatNothing() throws Exception {
        DatabaseStreamTest.Recorder first = stream();
        streams.get(0).join(first.handle("a"), new BsonDocument(), after(0), false); // task 1 had a1
        DatabaseStreamTest.Recorder second = stream();
        streams.get(1).join(second.handle("b"), new BsonDocument(), after(4), false); // task 2 had up to a3 (b1, b2 were its)
        await("a2, a3 and b3", () -> first.changes("a").size() >= 2 && second.changes("b").size() >= 1);
        assertThat(ids(first.changes("a"), c -> true)).containsExactly(2, 3);
        assertThat(ids(second.changes("b"), c -> true)).containsExactly(3);

        // task 1 restarts from the offset of its record for a2: only a3 again
        StreamPosition a2 = first.changes("a").get(0).offset().streamPosition();
        assertThat(a2.clusterTime()).isEqualTo(events.get(0).getClusterTime());
        DatabaseStreamTest.Recorder restarted = stream();
        streams.get(2).join(restarted.handle("a"), new BsonDocument(), a2, false);
        await("a3", () -> restarted.changes("a").size() >= 1);
        Thread.sleep(300);
        assertThat(ids(restarted.changes("a"), c -> true)).containsExactly(3);
        assertThat(ids(second.changes("b"), c -> true)).containsExactly(3);
        assertThat(txnOpHeaders("a", restarted.changes("a"))).as("a3 again, as the first time").containsExactly("4")
                .isEqualTo(txnOpHeaders("a", first.changes("a")).subList(1, 2));
        assertThat(txnOpHeaders("b", second.changes("b"))).containsExactly("5");
    }

    @Test
    void aPositionAtTheTransactionsClusterTimeRepeatsItsEventsOfThatCollectionAndNoMore() throws Exception {
        DatabaseStreamTest.Recorder out = stream();
        BsonTimestamp commit = events.get(0).getClusterTime();
        // an operation time (a copy's stream start, an offset without a token) is before every event at that time
        streams.get(0).join(out.handle("b"), new BsonDocument(), StreamPosition.atOperationTime(commit), false);
        await("b1..b3", () -> out.changes("b").size() >= 3);
        Thread.sleep(300);
        assertThat(ids(out.changes("b"), c -> true)).containsExactly(1, 2, 3);
        assertThat(txnOpHeaders("b", out.changes("b"))).containsExactly("1", "3", "5");
    }

    @Test
    void theTransactionIdentityIsTheSessionsUuidAndTheTxnNumber() {
        assertThat(transaction).matches("[0-9a-f-]{36}:\\d+");
        UUID.fromString(transaction.substring(0, 36));
        assertThat(RawChangeEvent.transactionId(events.get(0).getLsid(), events.get(0).getTxnNumber().longValue())).isEqualTo(transaction);
        assertThat(RawChangeEvent.transactionId(null, 3L)).isNull();
        assertThat(RawChangeEvent.transactionId(events.get(0).getLsid(), null)).isNull();
    }
}
