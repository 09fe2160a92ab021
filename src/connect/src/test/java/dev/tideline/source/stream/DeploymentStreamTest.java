package dev.tideline.source.stream;

import static dev.tideline.source.stream.DatabaseStreamTest.await;
import static dev.tideline.source.stream.DatabaseStreamTest.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The deployment's change stream ({@code client.watch()}) reading collections of several databases on the
 * stand-in: each event goes to its own namespace (two databases may have a collection of the same name),
 * a rename onto a collection and a {@code dropDatabase} are handled as a database's stream handles them, and
 * a dropped database does not stop the others (a deployment stream is never invalidated).
 */
class DeploymentStreamTest {
    private static final Namespace AX = new Namespace("a", "x");
    private static final Namespace BX = new Namespace("b", "x");
    private RunningStream running;
    private DatabaseStreamTest.Recorder out;

    private void start() {
        running = new RunningStream(new AwaitingMemoryBackend(), "a", true);
        out = running.out;
    }

    @AfterEach
    void stop() throws InterruptedException {
        running.close();
        assertThat(out.failures).isEmpty();
    }

    private com.mongodb.client.MongoClient client() {
        return running.mongo.client();
    }

    /** a.x and b.x, each with one document, read by the stream from now on. */
    private void readingAxAndBx() {
        client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 1));
        client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 1));
        running.stream.join(out.handle(AX), new BsonDocument(), now(client()), false);
        running.stream.join(out.handle(BX), new BsonDocument(), now(client()), false);
        running.start();
    }

    private List<Object> ids(Namespace ns) {
        return out.delivered.stream().filter(d -> d.collection().ns().equals(ns) && d.item() instanceof Captured.Change)
                .map(d -> (Object) ((Captured.Change) d.item()).event().id().asInt32().getValue()).toList();
    }

    private List<ControlType> controls(Namespace ns) {
        return out.delivered.stream().filter(d -> d.collection().ns().equals(ns) && d.item() instanceof Captured.Control)
                .map(d -> ((Captured.Control) d.item()).type()).toList();
    }

    @Test
    void oneStreamReadsTheCollectionsOfSeveralDatabasesEachUnderItsOwnNamespace() throws Exception {
        start();
        client().getDatabase("c").getCollection("x").insertOne(new Document("_id", 0));
        readingAxAndBx();
        client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 2));
        client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 3));
        client().getDatabase("c").getCollection("x").insertOne(new Document("_id", 4)); // not read by this task
        client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 5));
        await("both databases' inserts", () -> ids(AX).size() == 2 && ids(BX).size() == 1);
        assertThat(ids(AX)).containsExactly(2, 5);
        assertThat(ids(BX)).containsExactly(3);
        assertThat(out.delivered).allMatch(d -> !d.collection().ns().db().equals("c"));
        assertThat(running.stream.members()).isEqualTo(2);
    }

    @Test
    void aDroppedDatabaseIsReportedForItsCollectionsAndTheOtherDatabasesGoOnWithoutAnInvalidate() throws Exception {
        start();
        readingAxAndBx();
        client().getDatabase("a").drop();
        client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 2));
        client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 3));
        await("b's insert and a's insert after the drop", () -> ids(BX).contains(2) && ids(AX).contains(3));
        assertThat(controls(AX)).containsExactly(ControlType.DROP, ControlType.DROP_DATABASE);
        assertThat(controls(BX)).isEmpty();
        assertThat(out.lost).isEmpty();
    }

    @Test
    void aRenameOntoACollectionOfOneDatabaseMakesItCopiedAgainAndNoOtherDatabasesCollection() throws Exception {
        start();
        client().getDatabase("b").getCollection("staging").insertOne(new Document("_id", 9));
        readingAxAndBx();
        client().getDatabase("b").getCollection("staging").renameCollection(new com.mongodb.MongoNamespace("b", "x"),
                new com.mongodb.client.model.RenameCollectionOptions().dropTarget(true));
        client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 2));
        await("the re-copy request and a's insert", () -> !out.recopies.isEmpty() && ids(AX).contains(2));
        assertThat(out.recopies).containsExactly("b.x");
        assertThat(controls(BX)).containsExactly(ControlType.RENAMED_INTO);
        assertThat(controls(AX)).isEmpty();
        assertThat(running.stream.members()).as("a.x alone").isEqualTo(1);
    }
}
