package dev.tideline.standin;

import static dev.tideline.standin.Streams.namespaces;
import static dev.tideline.standin.Streams.take;
import static dev.tideline.standin.Streams.types;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-document transactions through the real driver ({@code ClientSession.withTransaction}, the transactions and
 * convenient-API specifications of mongodb/specifications) and the change events they give
 * (https://www.mongodb.com/docs/manual/reference/change-events/): nothing before the commit, then every operation
 * at the commit's cluster time, with {@code lsid} and {@code txnNumber}, in the order they ran, each with a token a
 * stream can resume at; an aborted transaction leaves neither events nor documents.
 */
class TransactionsTest {
    private MongoFixture mongo;
    private AwaitingMemoryBackend backend;
    private MongoClient client;
    private MongoDatabase db;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        mongo = MongoFixture.inProcess(backend, true);
        client = mongo.client();
        db = client.getDatabase("txn");
        db.getCollection("a").insertOne(new Document("_id", 0).append("v", 0));
        db.getCollection("b").insertOne(new Document("_id", 0).append("v", 0));
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void aCommittedTransactionsEventsShareTheCommitTimeCarryItsIdentityAndComeInTheOrderTheyRan() {
        MongoCollection<Document> a = db.getCollection("a");
        MongoCollection<Document> b = db.getCollection("b");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = db.watch().cursor();
             ClientSession session = client.startSession()) {
            session.withTransaction(() -> {
                a.insertOne(session, new Document("_id", 1));
                b.updateOne(session, Filters.eq("_id", 0), Updates.set("v", 1));
                a.deleteOne(session, Filters.eq("_id", 0));
                b.insertOne(session, new Document("_id", 2));
                return null;
            });
            a.insertOne(new Document("_id", 3)); // after the commit, outside any transaction

            List<ChangeStreamDocument<Document>> events = take(stream, 5);
            assertThat(types(events)).containsExactly("insert", "update", "delete", "insert", "insert");
            assertThat(namespaces(events)).containsExactly("txn.a", "txn.b", "txn.a", "txn.b", "txn.a");
            BsonTimestamp commit = events.get(0).getClusterTime();
            assertThat(events.subList(0, 4)).allSatisfy(e -> {
                assertThat(e.getClusterTime()).isEqualTo(commit);
                assertThat(e.getLsid().get("id")).isEqualTo(session.getServerSession().getIdentifier().get("id"));
                assertThat(e.getLsid().getBinary("uid").getData()).hasSize(32);
                assertThat(e.getTxnNumber().longValue()).isEqualTo(session.getServerSession().getTransactionNumber());
            });
            assertThat(events.get(4).getClusterTime()).isGreaterThan(commit);
            assertThat(events.get(4).getLsid()).as("a write outside a transaction").isNull();
            assertThat(events.get(4).getTxnNumber()).isNull();
            List<String> tokens = events.stream().map(e -> e.getResumeToken().getString("_data").getValue()).toList();
            assertThat(tokens).as("in event order, as strings").isSorted().doesNotHaveDuplicates();
        }
        assertThat(a.find().map(d -> d.getInteger("_id")).into(new ArrayList<>())).containsExactlyInAnyOrder(1, 3);
        assertThat(b.find(Filters.eq("_id", 0)).first()).containsEntry("v", 1);
    }

    @Test
    void aStreamSeesNothingOfAnOpenTransactionUntilItCommits() {
        MongoCollection<Document> a = db.getCollection("a");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = a.watch().cursor();
             ClientSession session = client.startSession()) {
            session.startTransaction();
            a.insertOne(session, new Document("_id", 1));
            a.insertOne(session, new Document("_id", 2));
            assertThat(stream.tryNext()).as("uncommitted").isNull();
            assertThat(stream.tryNext()).isNull();
            session.commitTransaction();
            List<ChangeStreamDocument<Document>> events = take(stream, 2);
            assertThat(events).extracting(e -> e.getDocumentKey().getInt32("_id").getValue()).containsExactly(1, 2);
        }
    }

    @Test
    void anAbortedTransactionLeavesNoEventAndEveryDocumentAsItWas() {
        MongoCollection<Document> a = db.getCollection("a");
        MongoCollection<Document> b = db.getCollection("b");
        a.insertOne(new Document("_id", 5).append("v", 5));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = db.watch().cursor();
             ClientSession session = client.startSession()) {
            session.startTransaction();
            a.insertOne(session, new Document("_id", 1));
            a.updateOne(session, Filters.eq("_id", 1), Updates.set("v", 1)); // inserted then changed: still removed
            b.replaceOne(session, Filters.eq("_id", 0), new Document("w", 9));
            a.deleteOne(session, Filters.eq("_id", 5));
            session.abortTransaction();
            a.insertOne(new Document("_id", 7));

            List<ChangeStreamDocument<Document>> events = take(stream, 1);
            assertThat(events).extracting(e -> e.getDocumentKey().getInt32("_id").getValue()).containsExactly(7);
            assertThat(events.get(0).getLsid()).isNull();
            b.updateOne(Filters.eq("_id", 0), Updates.set("v", 2));
            ChangeStreamDocument<Document> update = take(stream, 1).get(0);
            assertThat(update.getUpdateDescription().getUpdatedFields()).as("diffed against the rolled-back document")
                    .isEqualTo(BsonDocument.parse("{v: 2}"));
        }
        assertThat(a.find().map(d -> d.getInteger("_id")).into(new ArrayList<>())).containsExactlyInAnyOrder(0, 5, 7);
        assertThat(a.find(Filters.eq("_id", 5)).first()).containsEntry("v", 5);
        assertThat(b.find(Filters.eq("_id", 0)).first()).isEqualTo(new Document("_id", 0).append("v", 2));
    }

    @Test
    void aStreamResumedAtAnyEventOfATransactionGetsExactlyTheOnesAfterIt() {
        MongoCollection<Document> a = db.getCollection("a");
        MongoCollection<Document> b = db.getCollection("b");
        List<ChangeStreamDocument<Document>> all;
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = db.watch().cursor();
             ClientSession session = client.startSession()) {
            session.withTransaction(() -> {
                for (int i = 1; i <= 3; i++) {
                    a.insertOne(session, new Document("_id", i));
                    b.insertOne(session, new Document("_id", i));
                }
                return null;
            });
            all = take(stream, 6);
        }
        assertThat(all).hasSize(6);
        for (int k = 0; k < all.size(); k++) {
            BsonDocument token = all.get(k).getResumeToken();
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> resumed = db.watch().resumeAfter(token).cursor()) {
                List<ChangeStreamDocument<Document>> rest = take(resumed, all.size() - k - 1);
                assertThat(rest).as("resumed after event %d", k).extracting(ChangeStreamDocument::getResumeToken)
                        .containsExactlyElementsOf(all.subList(k + 1, all.size()).stream().map(ChangeStreamDocument::getResumeToken).toList());
            }
            // a collection stream of b resumed at a's event: b's events after it, by the transaction's order
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> onB = b.watch().resumeAfter(token).cursor()) {
                long expected = all.subList(k + 1, all.size()).stream().filter(e -> e.getNamespace().getCollectionName().equals("b")).count();
                assertThat(take(onB, (int) expected)).hasSize((int) expected)
                        .allSatisfy(e -> assertThat(e.getNamespace().getCollectionName()).isEqualTo("b"));
            }
        }
    }

    @Test
    void theSecondOfTwoOpenTransactionsWritingOneDocumentGetsAWriteConflictAndTheFirstOnesVersionStays() {
        MongoCollection<Document> a = db.getCollection("a");
        try (ClientSession first = client.startSession(); ClientSession second = client.startSession()) {
            first.startTransaction();
            a.updateOne(first, Filters.eq("_id", 0), Updates.set("v", 1));
            second.startTransaction();
            a.insertOne(second, new Document("_id", 9));
            assertThatThrownBy(() -> a.updateOne(second, Filters.eq("_id", 0), Updates.set("v", 2)))
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(112);
                        assertThat(e.hasErrorLabel("TransientTransactionError")).isTrue();
                    });
            assertThatThrownBy(second::commitTransaction).isInstanceOfSatisfying(MongoCommandException.class,
                    e -> assertThat(e.getErrorCode()).as("aborted by the conflict").isEqualTo(251));
            first.commitTransaction();
        }
        assertThat(a.find(Filters.eq("_id", 0)).first()).containsEntry("v", 1);
        assertThat(a.find(Filters.eq("_id", 9)).first()).as("the second transaction's insert, rolled back").isNull();
    }

    @Test
    void withTransactionRetriesTheWholeTransactionWhenTheStepDownAbortedIt() {
        MongoCollection<Document> a = db.getCollection("a");
        AtomicInteger attempts = new AtomicInteger();
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = a.watch().cursor();
             ClientSession session = client.startSession()) {
            session.withTransaction(() -> {
                a.insertOne(session, new Document("_id", 10 + attempts.get()));
                if (attempts.incrementAndGet() == 1) {
                    mongo.stepDown(); // MongoDB aborts the open transaction: its commit answers NoSuchTransaction
                }
                return null;
            });
            List<ChangeStreamDocument<Document>> events = take(stream, 1);
            assertThat(events).extracting(e -> e.getDocumentKey().getInt32("_id").getValue()).containsExactly(11);
            assertThat(stream.tryNext()).isNull();
        }
        assertThat(attempts).hasValue(2);
        assertThat(a.find(Filters.gte("_id", 10)).map(d -> d.getInteger("_id")).into(new ArrayList<>())).containsExactly(11);
    }
}
