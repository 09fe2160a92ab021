package dev.tideline.source.stream;

import static dev.tideline.source.stream.DatabaseStreamTest.await;
import static dev.tideline.source.stream.DatabaseStreamTest.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
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
    private MongoFixture mongo;
    private DatabaseStream stream;
    private Thread thread;
    private final DatabaseStreamTest.Recorder out = new DatabaseStreamTest.Recorder("a");

    private void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        stream = DatabaseStream.deployment(mongo.client(), new DatabaseStream.Settings(100, 200, 0, true, LargeEventPolicy.PARK, false), out);
        thread = new Thread(stream, "deployment-stream-test");
        thread.setDaemon(true);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (stream != null) {
            stream.stop();
            thread.join(5_000);
        }
        if (mongo != null) {
            mongo.close();
        }
        assertThat(out.failures).isEmpty();
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
        Namespace ax = new Namespace("a", "x");
        Namespace bx = new Namespace("b", "x");
        for (Namespace ns : List.of(ax, bx, new Namespace("c", "x"))) {
            mongo.client().getDatabase(ns.db()).createCollection(ns.coll());
        }
        stream.join(out.handle(ax), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle(bx), new BsonDocument(), now(mongo.client()), false);
        thread.start();
        mongo.client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 1));
        mongo.client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 2));
        mongo.client().getDatabase("c").getCollection("x").insertOne(new Document("_id", 3)); // not read by this task
        mongo.client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 4));
        await("both databases' inserts", () -> ids(ax).size() == 2 && ids(bx).size() == 1);
        assertThat(ids(ax)).containsExactly(1, 4);
        assertThat(ids(bx)).containsExactly(2);
        assertThat(out.delivered).allMatch(d -> !d.collection().ns().db().equals("c"));
    }

    @Test
    void aDroppedDatabaseIsReportedForItsCollectionsAndTheOtherDatabasesGoOnWithoutAnInvalidate() throws Exception {
        start();
        Namespace ax = new Namespace("a", "x");
        Namespace bx = new Namespace("b", "x");
        mongo.client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 1));
        mongo.client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 1));
        stream.join(out.handle(ax), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle(bx), new BsonDocument(), now(mongo.client()), false);
        thread.start();
        mongo.client().getDatabase("a").drop();
        mongo.client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 2));
        mongo.client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 3));
        await("b's insert and a's insert after the drop", () -> ids(bx).contains(2) && ids(ax).contains(3));
        assertThat(controls(ax)).containsExactly(ControlType.DROP, ControlType.DROP_DATABASE);
        assertThat(controls(bx)).isEmpty();
        assertThat(out.lost).isEmpty();
    }

    @Test
    void aRenameOntoACollectionOfOneDatabaseMakesItCopiedAgainAndNoOtherDatabasesCollection() throws Exception {
        start();
        Namespace ax = new Namespace("a", "x");
        Namespace bx = new Namespace("b", "x");
        mongo.client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 1));
        mongo.client().getDatabase("b").getCollection("x").insertOne(new Document("_id", 1));
        mongo.client().getDatabase("b").getCollection("staging").insertOne(new Document("_id", 9));
        stream.join(out.handle(ax), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle(bx), new BsonDocument(), now(mongo.client()), false);
        thread.start();
        mongo.client().getDatabase("b").getCollection("staging").renameCollection(new com.mongodb.MongoNamespace("b", "x"),
                new com.mongodb.client.model.RenameCollectionOptions().dropTarget(true));
        mongo.client().getDatabase("a").getCollection("x").insertOne(new Document("_id", 2));
        await("the re-copy request and a's insert", () -> !out.recopies.isEmpty() && ids(ax).contains(2));
        assertThat(out.recopies).containsExactly("b.x");
        assertThat(controls(bx)).containsExactly(ControlType.RENAMED_INTO);
        assertThat(controls(ax)).isEmpty();
        assertThat(stream.members()).as("a.x alone").isEqualTo(1);
    }
}
