package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How an open transaction is isolated from everything outside it, as MongoDB isolates it
 * (https://www.mongodb.com/docs/manual/core/transactions/ and .../transactions-production-consideration/): its writes
 * are invisible outside until it commits; a write outside it to a document it wrote waits until it ends; a document
 * committed after it started is a WriteConflict (112) for it; what it created goes with its abort; ending its
 * session aborts it.
 */
class TransactionIsolationTest {
    private MongoFixture mongo;
    private AwaitingMemoryBackend backend;
    private MongoClient client;
    private MongoDatabase db;
    private MongoCollection<Document> a;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        mongo = MongoFixture.inProcess(backend, true);
        client = mongo.client();
        db = client.getDatabase("iso");
        a = db.getCollection("a");
        a.insertOne(new Document("_id", 0).append("v", 0));
        a.insertOne(new Document("_id", 5).append("v", 5));
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void readersOutsideSeeOnlyCommittedDocumentsWhileTheTransactionSeesItsOwn() {
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            a.insertOne(session, new Document("_id", 1).append("v", 1));
            a.updateOne(session, Filters.eq("_id", 0), Updates.set("v", 10));
            a.deleteOne(session, Filters.eq("_id", 5));

            assertThat(ids(a.find())).as("outside, before the commit").containsExactlyInAnyOrder(0, 5);
            assertThat(a.find(Filters.eq("_id", 0)).first()).containsEntry("v", 0);
            assertThat(a.countDocuments(Filters.gte("v", 1))).isEqualTo(1); // _id 5 only
            assertThat(ids(a.find(session))).as("inside").containsExactlyInAnyOrder(0, 1);
            assertThat(a.find(session, Filters.eq("_id", 0)).first()).containsEntry("v", 10);

            session.commitTransaction();
        }
        assertThat(ids(a.find())).containsExactlyInAnyOrder(0, 1);
        assertThat(a.find(Filters.eq("_id", 0)).first()).containsEntry("v", 10);
    }

    @Test
    void aTransactionWritingADocumentCommittedAfterItStartedGetsAWriteConflict() {
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            a.insertOne(session, new Document("_id", 1)); // the transaction's snapshot is taken here
            a.updateOne(Filters.eq("_id", 0), Updates.set("v", 7)); // outside, committed after the snapshot
            assertThatThrownBy(() -> a.updateOne(session, Filters.eq("_id", 0), Updates.set("v", 8)))
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(112);
                        assertThat(e.hasErrorLabel("TransientTransactionError")).isTrue();
                    });
            assertThatThrownBy(session::commitTransaction).isInstanceOfSatisfying(MongoCommandException.class,
                    e -> assertThat(e.getErrorCode()).as("aborted by the conflict").isEqualTo(251));
        }
        assertThat(a.find(Filters.eq("_id", 0)).first()).containsEntry("v", 7);
        assertThat(a.find(Filters.eq("_id", 1)).first()).isNull();
    }

    @Test
    void aTransactionCommittedAfterAnotherStartedIsAWriteConflictForIt() {
        try (ClientSession first = client.startSession(); ClientSession second = client.startSession()) {
            first.startTransaction();
            a.insertOne(first, new Document("_id", 1));
            second.startTransaction();
            a.updateOne(second, Filters.eq("_id", 0), Updates.set("v", 2));
            second.commitTransaction();
            assertThatThrownBy(() -> a.updateOne(first, Filters.eq("_id", 0), Updates.set("v", 1)))
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(112));
        }
        assertThat(a.find(Filters.eq("_id", 0)).first()).containsEntry("v", 2);
    }

    @Test
    void aWriteOutsideWaitsForTheTransactionThatWroteItsDocumentAndThenAppliesOnItsCommit() throws Exception {
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            a.updateOne(session, Filters.eq("_id", 0), Updates.set("v", 10));
            CompletableFuture<Void> outside = CompletableFuture.runAsync(() -> a.updateOne(Filters.eq("_id", 0), Updates.inc("v", 1)));
            Awaitility.await("the outside write waits on the server").atMost(Duration.ofSeconds(10))
                    .until(() -> backend.writesWaitingForTransactions() == 1);
            a.updateOne(Filters.eq("_id", 5), Updates.inc("v", 1)); // another document: not held back
            assertThat(outside).as("held by the transaction").isNotDone();
            session.commitTransaction();
            outside.get(10, TimeUnit.SECONDS);
        }
        assertThat(a.find(Filters.eq("_id", 0)).first()).as("the outside $inc on the committed 10").containsEntry("v", 11);
        assertThat(a.find(Filters.eq("_id", 5)).first()).containsEntry("v", 6);
    }

    @Test
    void aWriteOutsideWaitsAtMostForItsMaxTimeOrTheTransactionsLifetime() throws Exception {
        backend.transactionLifetimeLimit(Duration.ofMillis(1500));
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            a.insertOne(session, new Document("_id", 1).append("v", "txn"));
            assertThatThrownBy(() -> db.runCommand(new Document("insert", "a")
                    .append("documents", List.of(new Document("_id", 1).append("v", "outside"))).append("maxTimeMS", 200)))
                    .isInstanceOfSatisfying(MongoExecutionTimeoutException.class, e -> assertThat(e.getCode()).isEqualTo(50));
            a.insertOne(new Document("_id", 1).append("v", "outside")); // waits until the lifetime limit aborts it
            assertThatThrownBy(session::commitTransaction).isInstanceOfSatisfying(MongoCommandException.class,
                    e -> assertThat(e.getErrorCode()).as("aborted at its lifetime limit").isEqualTo(251));
        }
        assertThat(a.find(Filters.eq("_id", 1)).first()).containsEntry("v", "outside");
    }

    @Test
    void aCollectionCreatedInAnAbortedTransactionGoesWithIt() {
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            db.getCollection("fresh").insertOne(session, new Document("_id", 1));
            db.createCollection(session, "made");
            session.abortTransaction();
        }
        assertThat(db.listCollectionNames().into(new ArrayList<>())).containsExactly("a");
        db.getCollection("fresh").insertOne(new Document("_id", 2)); // created again, outside
        assertThat(ids(db.getCollection("fresh").find())).containsExactly(2);
    }

    @Test
    void endingTheSessionAbortsItsOpenTransaction() {
        try (ClientSession session = client.startSession(); ClientSession other = client.startSession()) {
            session.startTransaction();
            a.updateOne(session, Filters.eq("_id", 0), Updates.set("v", 1));
            client.getDatabase("admin").runCommand(new Document("endSessions",
                    List.of(session.getServerSession().getIdentifier())));

            a.updateOne(Filters.eq("_id", 0), Updates.set("v", 3)); // no transaction holds it any more: no wait
            assertThatThrownBy(session::commitTransaction).isInstanceOfSatisfying(MongoCommandException.class,
                    e -> assertThat(e.getErrorCode()).isEqualTo(251));
        }
        assertThat(a.find(Filters.eq("_id", 0)).first()).containsEntry("v", 3);
    }

    private static List<Integer> ids(Iterable<Document> found) {
        List<Integer> ids = new ArrayList<>();
        found.forEach(d -> ids.add(d.getInteger("_id")));
        return ids;
    }
}
