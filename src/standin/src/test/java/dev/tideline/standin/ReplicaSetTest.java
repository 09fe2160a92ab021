package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoNotPrimaryException;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.connection.ClusterConnectionMode;
import com.mongodb.connection.ClusterType;
import com.mongodb.connection.ServerDescription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stand-in as a three-member replica set, seen through the real driver: its topology, a step-down (writes go to
 * the new primary, the old one refuses them, open cursors go on), and a member restart (connections and cursors gone:
 * the driver's change stream resumes by itself on the new primary).
 */
class ReplicaSetTest {
    private MongoFixture mongo;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void theDriverRunsItsReplicaSetTopologyOnThreeMembers() {
        MongoClient client = mongo.client();
        client.getDatabase("rs").getCollection("c").insertOne(new Document("_id", 1));

        assertThat(mongo.uri()).contains("replicaSet=" + MongoFixture.REPLICA_SET_NAME);
        assertThat(client.getClusterDescription().getConnectionMode()).isEqualTo(ClusterConnectionMode.MULTIPLE);
        Awaitility.await("all three members described").atMost(Duration.ofSeconds(10))
                .until(() -> client.getClusterDescription().getServerDescriptions().stream().filter(ServerDescription::isOk).count() == 3);
        assertThat(client.getClusterDescription().getType()).isEqualTo(ClusterType.REPLICA_SET);
        assertThat(primaries(client)).hasSize(1);
        assertThat(secondaries(client)).as(client.getClusterDescription().toString()).hasSize(2);
        ServerDescription primary = primaries(client).get(0);
        assertThat(primary.getSetName()).isEqualTo(MongoFixture.REPLICA_SET_NAME);
        assertThat(primary.getAddress().toString()).isEqualTo(mongo.replicaSet().orElseThrow().hosts().get(0));
        assertThat(primary.getLogicalSessionTimeoutMinutes()).isEqualTo(30);
        assertThat(primary.getElectionId()).isNotNull();
        assertThat(primary.getTopologyVersion()).isNotNull();
    }

    @Test
    void helloOnEveryMemberNamesTheNewPrimaryAfterAStepDownAndTheTopologyVersionGrows() {
        ReplicaSet set = mongo.replicaSet().orElseThrow();
        List<Document> before = set.hosts().stream().map(ReplicaSetTest::hello).toList();
        assertThat("127.0.0.1:" + mongo.port()).as("the fixture's port: the primary's").isEqualTo(set.hosts().get(0));
        mongo.stepDown();
        assertThat("127.0.0.1:" + mongo.port()).isEqualTo(set.hosts().get(1));
        List<Document> after = set.hosts().stream().map(ReplicaSetTest::hello).toList();

        for (int i = 0; i < 3; i++) {
            assertThat(before.get(i).getString("primary")).isEqualTo(set.hosts().get(0));
            assertThat(after.get(i).getString("primary")).isEqualTo(set.hosts().get(1));
            assertThat(after.get(i).getString("me")).isEqualTo(set.hosts().get(i));
            assertThat(after.get(i).get("hosts", List.class)).isEqualTo(set.hosts());
            assertThat(after.get(i).getString("setName")).isEqualTo(MongoFixture.REPLICA_SET_NAME);
            Document tvBefore = before.get(i).get("topologyVersion", Document.class);
            Document tvAfter = after.get(i).get("topologyVersion", Document.class);
            assertThat(tvAfter.get("processId")).isEqualTo(tvBefore.get("processId"));
            assertThat(tvAfter.getLong("counter")).isGreaterThan(tvBefore.getLong("counter"));
            assertThat(after.get(i).getBoolean("isWritablePrimary")).isEqualTo(i == 1);
            assertThat(after.get(i).getBoolean("secondary")).isEqualTo(i != 1);
        }
        assertThat(before.get(0).get("electionId")).isNotNull();
        assertThat(((org.bson.types.ObjectId) after.get(1).get("electionId")))
                .isGreaterThan((org.bson.types.ObjectId) before.get(0).get("electionId"));
    }

    @Test
    void afterAStepDownWritesReachTheNewPrimaryAndTheOldOneRefusesWritesAndPrimaryReads() {
        MongoCollection<Document> c = mongo.client().getDatabase("rs").getCollection("writes");
        c.insertOne(new Document("_id", 1));
        String oldPrimary = mongo.replicaSet().orElseThrow().hosts().get(0);
        mongo.stepDown();

        c.insertOne(new Document("_id", 2)); // the driver finds the new primary (a retryable write, if it must)
        assertThat(c.countDocuments()).isEqualTo(2);
        assertThat(primaries(mongo.client())).extracting(s -> s.getAddress().toString())
                .containsExactly(mongo.replicaSet().orElseThrow().hosts().get(1));

        try (MongoClient direct = MongoClients.create("mongodb://" + oldPrimary + "/?directConnection=true&retryWrites=false")) {
            MongoCollection<Document> old = direct.getDatabase("rs").getCollection("writes");
            assertThatThrownBy(() -> old.insertOne(new Document("_id", 3)))
                    .isInstanceOf(MongoNotPrimaryException.class)
                    .satisfies(e -> assertThat(((MongoNotPrimaryException) e).getCode()).isEqualTo(ReplicaSet.NOT_WRITABLE_PRIMARY))
                    .satisfies(e -> assertThat(((MongoNotPrimaryException) e).hasErrorLabel("RetryableWriteError"))
                            .as("not a retryable write (no txnNumber): no label").isFalse());
        }
        try (MongoClient direct = MongoClients.create("mongodb://" + oldPrimary + "/?directConnection=true")) {
            // a direct connection reads with primaryPreferred (server-selection spec): a secondary answers
            assertThat(direct.getDatabase("rs").getCollection("writes").countDocuments()).isEqualTo(2);
        }
        assertThat(c.countDocuments()).as("the refused insert did nothing").isEqualTo(2);
    }

    @Test
    void openCursorsGoOnAfterAStepDown() {
        MongoCollection<Document> c = mongo.client().getDatabase("rs").getCollection("cursors");
        for (int i = 0; i < 10; i++) {
            c.insertOne(new Document("_id", i));
        }
        try (MongoCursor<Document> find = c.find().batchSize(2).cursor();
             MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = c.watch().maxAwaitTime(100, TimeUnit.MILLISECONDS).cursor()) {
            find.next();
            stream.tryNext();
            mongo.stepDown();
            int rest = 0;
            while (find.hasNext()) {
                find.next();
                rest++;
            }
            assertThat(rest).as("getMore on the old primary, now a secondary (MongoDB 4.2 on)").isEqualTo(9);
            c.insertOne(new Document("_id", 100));
            assertThat(Streams.take(stream, 1)).extracting(e -> e.getDocumentKey().getInt32("_id").getValue()).containsExactly(100);
        }
    }

    @Test
    void aRestartedMemberClosesItsConnectionsAndTheDriversChangeStreamResumesOnTheNewPrimary() {
        MongoCollection<Document> c = mongo.client().getDatabase("rs").getCollection("resume");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = c.watch().maxAwaitTime(100, TimeUnit.MILLISECONDS).cursor()) {
            c.insertOne(new Document("_id", 1));
            assertThat(Streams.take(stream, 1)).hasSize(1);
            mongo.replicaSet().orElseThrow().restart(0);
            c.insertOne(new Document("_id", 2));
            c.insertOne(new Document("_id", 3));
            assertThat(Streams.take(stream, 2)).extracting(e -> e.getDocumentKey().getInt32("_id").getValue())
                    .as("nothing lost, nothing twice").containsExactly(2, 3);
        }
        assertThat(mongo.replicaSet().orElseThrow().primary()).isEqualTo(1);
    }

    private static Document hello(String host) {
        try (MongoClient direct = MongoClients.create("mongodb://" + host + "/?directConnection=true")) {
            return direct.getDatabase("admin").runCommand(new Document("hello", 1));
        }
    }

    @Test
    void aSecondaryRefusesReadsWhoseReadPreferenceIsPrimary() {
        ReplicaSet set = new ReplicaSet("rs", List.of(1, 2, 3));
        de.bwaldvogel.mongo.bson.Document find = new de.bwaldvogel.mongo.bson.Document("find", "c");
        assertThat(set.refusal(1, "find", find)).containsEntry("code", ReplicaSet.NOT_PRIMARY_NO_SECONDARY_OK);
        assertThat(set.refusal(0, "find", find)).isNull();
        find.put("$readPreference", new de.bwaldvogel.mongo.bson.Document("mode", "secondaryPreferred"));
        assertThat(set.refusal(1, "find", find)).isNull();
        assertThat(set.refusal(1, "getmore", new de.bwaldvogel.mongo.bson.Document("getMore", 1L))).as("open cursors go on").isNull();
        set.stepDown();
        assertThat(set.refusal(0, "insert", new de.bwaldvogel.mongo.bson.Document("insert", "c")))
                .containsEntry("code", ReplicaSet.NOT_WRITABLE_PRIMARY).doesNotContainKey("errorLabels");
        assertThat(set.refusal(0, "insert", new de.bwaldvogel.mongo.bson.Document("insert", "c").append("txnNumber", 1L)))
                .as("a retryable write: the server labels it (retryable-writes.md, 4.4 on)")
                .containsEntry("errorLabels", List.of("RetryableWriteError"));
        assertThat(set.refusal(1, "insert", new de.bwaldvogel.mongo.bson.Document("insert", "c"))).isNull();
    }

    private static List<ServerDescription> primaries(MongoClient client) {
        return client.getClusterDescription().getServerDescriptions().stream().filter(ServerDescription::isPrimary).toList();
    }

    private static List<ServerDescription> secondaries(MongoClient client) {
        return client.getClusterDescription().getServerDescriptions().stream().filter(ServerDescription::isSecondary).toList();
    }
}
