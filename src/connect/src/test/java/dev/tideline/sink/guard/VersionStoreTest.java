package dev.tideline.sink.guard;

import static dev.tideline.sink.TestRecords.ts;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.event.Namespace;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sidecar's read and write against an in-process mongo-java-server. */
class VersionStoreTest {
    private static final Namespace NS = new Namespace("dest", "orders");

    private MongoServer server;
    private MongoClient client;
    private VersionStore store;

    @BeforeEach
    void start() {
        server = new MongoServer(new AwaitingMemoryBackend());
        InetSocketAddress a = server.bind();
        client = MongoClients.create("mongodb://" + a.getHostString() + ":" + a.getPort());
        store = new VersionStore(client);
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    private MongoCollection<BsonDocument> sidecar() {
        return client.getDatabase(NS.db()).getCollection(VersionStore.COLLECTION, BsonDocument.class);
    }

    private static BsonDocument key(int id) {
        return new BsonDocument("ns", new BsonString(NS.coll())).append("id", new BsonInt32(id));
    }

    private static VersionStore.VersionedWrite version(int id, int seconds, boolean fresh) {
        return new VersionStore.VersionedWrite(new BsonInt32(id), ts(seconds), false, "topic", 2, fresh);
    }

    private BsonDocument entry(int id) {
        return sidecar().find(new BsonDocument("_id", key(id))).first();
    }

    @Test
    void readTellsStoredVersionsAndWhichIdsHaveNoEntry() {
        store.write(NS, List.of(version(1, 10, true)));
        sidecar().insertOne(new BsonDocument("_id", key(2)).append("v", BsonNull.VALUE)); // an entry, but no version

        VersionStore.Snapshot s = store.read(NS, List.of(new BsonInt32(1), new BsonInt32(2), new BsonInt32(3)));

        assertThat(s.versions()).containsOnlyKeys(new BsonInt32(1));
        assertThat(s.versions().get(new BsonInt32(1))).isEqualTo(new StoredVersion(ts(10), false));
        assertThat(s.absent()).containsExactly(new BsonInt32(3));
    }

    @Test
    void freshVersionsAreInsertedAndKnownOnesReplacedWithTopicAndPartition() {
        store.write(NS, List.of(version(1, 10, true), version(2, 10, true)));
        store.write(NS, List.of(version(1, 20, false), version(3, 5, true)));

        assertThat(sidecar().countDocuments()).isEqualTo(3);
        assertThat(entry(1).get("v")).isEqualTo(ts(20));
        assertThat(entry(2).get("v")).isEqualTo(ts(10));
        assertThat(entry(3).getString("t").getValue()).isEqualTo("topic");
        assertThat(entry(3).getInt32("p").getValue()).isEqualTo(2);
        assertThat(entry(3).getBoolean("deleted").getValue()).isFalse();
    }

    @Test
    void aFreshVersionWhoseEntryAppearedSinceTheReadReplacesIt() {
        store.write(NS, List.of(version(1, 10, true)));

        // id 1 was absent when read, but an entry exists by now (say, another connector's): no failure, the version lands
        store.write(NS, List.of(version(1, 30, true), version(2, 30, true)));

        assertThat(sidecar().countDocuments()).isEqualTo(2);
        assertThat(entry(1).get("v")).isEqualTo(ts(30));
        assertThat(entry(2).get("v")).isEqualTo(ts(30));
    }

    @Test
    void writesMoreThanOneChunk() {
        List<VersionStore.VersionedWrite> many = new ArrayList<>();
        List<BsonValue> ids = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            many.add(version(i, 10, i % 2 == 0));
            ids.add(new BsonInt32(i));
        }
        store.write(NS, many);

        VersionStore.Snapshot s = store.read(NS, ids);
        assertThat(s.versions()).hasSize(2_500);
        assertThat(s.absent()).isEmpty();
    }

    @Test
    void theTieBreakerIsStoredBesideTheVersionAndASweepForgetsIt() {
        store.write(NS, List.of(new VersionStore.VersionedWrite(new BsonInt32(1), ts(10), false, "topic", 2, true, 4L),
                version(2, 10, true)));

        VersionStore.Snapshot s = store.read(NS, List.of(new BsonInt32(1), new BsonInt32(2)));
        assertThat(s.versions().get(new BsonInt32(1))).isEqualTo(new StoredVersion(ts(10), false, 4L));
        assertThat(s.versions().get(new BsonInt32(2))).isEqualTo(new StoredVersion(ts(10), false, null));
        assertThat(entry(1).get("v")).as("v stays a plain cluster time, as older sinks read it").isEqualTo(ts(10));

        store.markDeleted(NS, List.of(new BsonInt32(1)), ts(20));
        assertThat(store.read(NS, List.of(new BsonInt32(1))).versions().get(new BsonInt32(1)))
                .isEqualTo(new StoredVersion(ts(20), true, null));
    }
}
