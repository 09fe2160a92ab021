package dev.tideline.peer.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A peer sink task (re)started reads its own records again from its committed position: its change stream of the
 * collection starts at the earliest of them, so the barrier knows the local writes those records come before (an own
 * record of an update read late then waits for the later write's record instead of stamping its content early).
 */
class LocalChangeWatcherTest {
    private static final Namespace NS = new Namespace("watch", "docs");
    private MongoFixture mongo;

    @AfterEach
    void stop() {
        mongo.close();
    }

    private static BsonTimestamp now(MongoDatabase db) {
        return db.runCommand(new BsonDocument("ping", new BsonInt32(1)), BsonDocument.class).getTimestamp("operationTime");
    }

    @Test
    void aStreamOpenedForTheFirstTimeStartsAtTheEarliestOwnRecordQueued() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase(NS.db());
        MongoCollection<BsonDocument> docs = db.getCollection(NS.coll(), BsonDocument.class);
        BsonInt32 id = new BsonInt32(1);
        docs.insertOne(new BsonDocument("_id", id).append("w", new BsonInt32(1)));
        BsonTimestamp ownRecord = now(db); // the insert's own record: the earliest one queued after a restart
        docs.updateOne(Filters.eq("_id", id), Updates.set("w", new BsonInt32(2))); // a later local write, made before the restart
        PeerChange.DocKey key = new PeerChange.DocKey(NS, id);

        LocalChangeBarrier fromOwnRecords = new LocalChangeBarrier();
        try (LocalChangeWatcher watcher = new LocalChangeWatcher(mongo.client())) {
            watcher.catchUp(NS, fromOwnRecords, () -> ownRecord);
        }
        assertThat(fromOwnRecords.writtenAfter(key, ownRecord, null)).as("the later write is known").isNotNull();

        LocalChangeBarrier fromNow = new LocalChangeBarrier();
        try (LocalChangeWatcher watcher = new LocalChangeWatcher(mongo.client())) {
            watcher.catchUp(NS, fromNow, () -> null);
        }
        assertThat(fromNow.writtenAfter(key, ownRecord, null)).as("opened at now, as before: not seen").isNull();
    }
}
