package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.config.ConfigExamples;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sign.Mac128;
import dev.tideline.source.config.PeerSourceSettings;
import dev.tideline.source.config.SourceConfig;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A source that reads its changes again (a restart from its committed position, a new source's margin) labels them as
 * it did the first time: a delete's tombstone is read as it was at the delete, not as it is now. Read now, a later
 * delete's tombstone moved the clock, and a local delete replayed after it was labelled newer than a peer's write that
 * had won over it: every cluster would then delete that write.
 */
class PeerOriginTaggerReplayTest {
    private static final Namespace NS = new Namespace("replay", "docs");
    private MongoFixture mongo;

    @AfterEach
    void stop() {
        mongo.close();
    }

    private static PeerSourceSettings peer() {
        return new SourceConfig(Map.of(MongoClientFactory.URI_KEY, "mongodb://127.0.0.1:1", PeerSourceSettings.CLUSTER_ID, "A",
                "peer.stamp.key", ConfigExamples.PEER_STAMP_KEY)).peer();
    }

    /** Keeps B's tombstone of {@code id} as A's peer sink does, before it deletes the document. */
    private static void keepTombstone(MongoDatabase db, StampKeys keys, BsonValue id, Version v) {
        BsonDocument key = PeerCollections.tombstoneKey(NS.coll(), id);
        Mac128 mac = keys.sign(PeerCollections.tombstoneBound("A", NS, id, v));
        BsonDocument tomb = new BsonDocument("_id", key).append("v", v.toBson()).append("expireAt", new BsonDateTime(Long.MAX_VALUE / 2))
                .append("k", new BsonString(mac.keyId())).append("m", new BsonString(mac.mac()));
        db.getCollection(PeerCollections.TOMBSTONES, BsonDocument.class).replaceOne(Filters.eq("_id", key), tomb,
                new com.mongodb.client.model.ReplaceOptions().upsert(true));
    }

    private static BsonTimestamp now(MongoDatabase db) {
        return db.runCommand(new BsonDocument("ping", new BsonInt32(1)), BsonDocument.class).getTimestamp("operationTime");
    }

    private static ChangeEvent delete(BsonValue id, BsonTimestamp at) {
        return new ChangeEvent(Op.DELETE, NS, id, null, at, 0, null);
    }

    @Test
    void aReplayedDeleteReadsTheTombstoneAsItWasAtTheDeleteAndKeepsItsFirstLabel() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase(NS.db());
        MongoCollection<BsonDocument> docs = db.getCollection(NS.coll(), BsonDocument.class);
        PeerSourceSettings peer = peer();
        BsonInt32 y = new BsonInt32(1);
        BsonInt32 x = new BsonInt32(2);
        docs.insertOne(new BsonDocument("_id", y));
        docs.insertOne(new BsonDocument("_id", x));
        BsonTimestamp start = now(db);

        // B's delete of y, version a second ahead of this cluster's time (B's clock and counter run apart), applied here
        Version firstDelete = new Version(new BsonTimestamp(start.getTime() + 1, 10), "B");
        keepTombstone(db, peer.keys(), y, firstDelete);
        docs.deleteOne(Filters.eq("_id", y));
        BsonTimestamp yDeleted = now(db);
        docs.deleteOne(Filters.eq("_id", x)); // an application's delete of x, here
        BsonTimestamp xDeleted = now(db);

        PeerOriginTagger live = new PeerOriginTagger(peer, db, NS.coll(), null);
        PeerOriginTagger.Tagged liveY = live.tag(delete(y, yDeleted));
        PeerOriginTagger.Tagged liveX = live.tag(delete(x, xDeleted));
        assertThat(liveY.version()).isEqualTo(firstDelete);
        assertThat(liveX.version().origin()).isEqualTo("A");

        // B deletes y again, much later in its clock: this cluster's tombstone of y now holds that delete
        keepTombstone(db, peer.keys(), y, new Version(new BsonTimestamp(start.getTime() + 2, 99), "B"));

        PeerOriginTagger replayed = new PeerOriginTagger(peer, db, NS.coll(), null); // the same events read again
        PeerOriginTagger.Tagged againY = replayed.tag(delete(y, yDeleted));
        PeerOriginTagger.Tagged againX = replayed.tag(delete(x, xDeleted));
        assertThat(againX.version()).as("x's local delete, as first labelled: not newer than what won over it").isEqualTo(liveX.version());
        assertThat(againY.version()).as("y's delete, as first labelled").isEqualTo(firstDelete);
    }
}
