package dev.tideline.source.config;

import dev.tideline.mongo.MongoConnectionSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.CaptureSettings.LostHistoryPolicy;
import dev.tideline.source.config.CaptureSettings.Mode;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SourceConfigTest {
    private static final String URI = "mongodb://user:secret@localhost:27017/?replicaSet=rs0";

    private static SourceConfig config(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        props.put(MongoConnectionSettings.URI, URI);
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return new SourceConfig(props);
    }

    @Test
    void defaultsParse() {
        SourceConfig c = config();
        assertThat(c.connection().uri().value()).isEqualTo(URI);
        assertThat(c.connection().connectTimeoutMs()).isEqualTo(10_000);
        assertThat(c.capture().mode()).isEqualTo(Mode.AUTO);
        assertThat(c.capture().initialSync()).isEqualTo(new InitialSync(InitialSync.Kind.FULL, null));
        assertThat(c.capture().lostHistoryPolicy()).isEqualTo(LostHistoryPolicy.RESNAPSHOT);
        assertThat(c.capture().outputFormat()).isEqualTo(ValueFormat.JSON);
        assertThat(c.capture().filters()).isEmpty();
        assertThat(c.capture().filterFor(new Namespace("shop", "orders"))).isEqualTo(new BsonDocument());
        assertThat(c.capture().tenantField()).isNull();
        assertThat(c.capture().deleteTombstone()).isFalse();
        assertThat(c.capture().heartbeatIntervalMs()).isEqualTo(10_000L);
        assertThat(c.capture().batchSize()).isEqualTo(1000);
        assertThat(c.capture().maxAwaitMs()).isEqualTo(1000);
        assertThat(c.topics().namer().topicFor(new Namespace("shop", "orders"))).isEqualTo("tideline.shop.orders");
        assertThat(c.topics().heartbeatTopic()).isEqualTo("tideline.heartbeats");
        assertThat(c.topics().controlTopic()).isEqualTo("tideline.control");
        assertThat(c.scan().keyFor(new Namespace("shop", "orders"))).isEqualTo("updatedAt");
        assertThat(c.scan().deleteMarkerCollection()).isEqualTo("_tideline_deletes");
        assertThat(c.scan().intervalMs()).isEqualTo(1_000L);
        assertThat(c.selection().discoveryIntervalMs()).isEqualTo(30_000L);
    }

    @Test
    void aNamespacesMarkersGoToEveryPartitionOfTheTopicItIsMappedTo() {
        SourceConfig c = config(TopicSettings.TOPIC_NAMESPACE_MAP, "{\"shop.orders\": \"orders\"}",
                "topic.creation.default.partitions", "3", "topic.creation.groups", "big", "topic.creation.big.include", "orders",
                "topic.creation.big.partitions", "12");
        assertThat(c.topics().markerPartitions(new Namespace("shop", "orders"))).as("mapped into the group").isEqualTo(12);
        assertThat(c.topics().markerPartitions(new Namespace("shop", "items"))).as("tideline.shop.items: the default").isEqualTo(3);
    }

    @Test
    void explicitValuesParse() {
        SourceConfig c = config(CaptureSettings.MODE, " ChangeStream ", CaptureSettings.INITIAL_SYNC, "2024-05-01T00:00:00Z",
                CaptureSettings.LOST_HISTORY_POLICY, "FAIL", CaptureSettings.OUTPUT_FORMAT, "bson",
                CaptureSettings.FILTERS, "{\"shop.orders\": {\"status\": {\"$ne\": \"draft\"}}}",
                CaptureSettings.TENANT_FIELD, " tenant.id ", TopicSettings.TOPIC_PREFIX, "tl",
                ScanSettings.SCAN_KEYS, "{\"shop.audit\": \"ts\"}");
        assertThat(c.capture().mode()).isEqualTo(Mode.CHANGE_STREAM);
        assertThat(c.capture().initialSync()).isEqualTo(new InitialSync(InitialSync.Kind.DATE, Instant.parse("2024-05-01T00:00:00Z")));
        assertThat(c.capture().lostHistoryPolicy()).isEqualTo(LostHistoryPolicy.FAIL);
        assertThat(c.capture().outputFormat()).isEqualTo(ValueFormat.BSON);
        assertThat(c.capture().filterFor(new Namespace("shop", "orders"))).isEqualTo(BsonDocument.parse("{status: {$ne: 'draft'}}"));
        assertThat(c.capture().tenantField()).isEqualTo("tenant.id");
        assertThat(c.topics().heartbeatTopic()).isEqualTo("tl.heartbeats");
        assertThat(c.scan().keyFor(new Namespace("shop", "audit"))).isEqualTo("ts");
        assertThat(c.scan().keyFor(new Namespace("shop", "orders"))).isEqualTo("updatedAt");
        assertThat(config(CaptureSettings.MODE, "scan").capture().mode()).isEqualTo(Mode.SCAN);
        assertThat(config(CaptureSettings.INITIAL_SYNC, "Skip").capture().initialSync().kind()).isEqualTo(InitialSync.Kind.SKIP);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "mode|stream",
            "initial.sync|yesterday",
            "lost.history.policy|ignore",
            "output.format|avro",
            "database.include|shop(",
            "database.exclude|[a-",
            "collection.include|shop\\.orders,(unclosed",
            "collection.exclude|*",
            "filters|{\"shop.orders\": {\"status\": }",
            "filters|not json",
            "filters|[1, 2]",
            "topic.namespace.map|{\"shop.orders\": \"bad topic\"}",
            "topic.namespace.map|{\"regex:shop\\.(\": \"x\"}",
            "scan.keys|{oops",
            "batch.size|0",
            "peer.cluster.id|eu west",
    })
    void badValuesNameTheKey(String key, String value) {
        assertThatThrownBy(() -> config(key, value)).isInstanceOf(ConfigException.class).hasMessageContaining(key);
    }

    @Test
    void missingUriIsRejected() {
        assertThatThrownBy(() -> new SourceConfig(Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining(MongoConnectionSettings.URI);
    }

    @Test
    void uriIsNotInToString() {
        assertThat(config().toString()).doesNotContain("secret");
    }

    // ---- SelectionSettings.includes ----

    @Test
    void systemDatabasesAndCollectionsAreNeverIncluded() {
        SelectionSettings s = config(SelectionSettings.DATABASE_INCLUDE, ".*", SelectionSettings.COLLECTION_INCLUDE, ".*").selection();
        assertThat(s.includes(new Namespace("admin", "users"))).isFalse();
        assertThat(s.includes(new Namespace("local", "oplog.rs"))).isFalse();
        assertThat(s.includes(new Namespace("config", "chunks"))).isFalse();
        assertThat(s.includes(new Namespace("shop", "system.views"))).isFalse();
        assertThat(s.includes(new Namespace("shop", "_tideline_deletes"))).isFalse();
        assertThat(s.includes(new Namespace("shop", "_tidelineState"))).isFalse();
        assertThat(s.includes(new Namespace("shop", "orders"))).isTrue();
        assertThat(s.includes(new Namespace("shop", "my_tideline"))).isTrue();
        assertThat(s.includes(new Namespace("shop", "systems"))).isTrue();
        assertThat(s.includesDatabase("admin")).isFalse();
        assertThat(s.includesDatabase("administration")).isTrue();
    }

    @Test
    void emptySelectionIncludesEveryUserCollection() {
        SelectionSettings s = config().selection();
        assertThat(s.includes(new Namespace("shop", "orders"))).isTrue();
        assertThat(s.includes(new Namespace("crm", "people.v2"))).isTrue();
    }

    @Test
    void collectionIncludeAndExcludeMatchTheWholeNamespace() {
        SelectionSettings s = config(SelectionSettings.COLLECTION_INCLUDE, "shop\\..*,crm\\.people",
                SelectionSettings.COLLECTION_EXCLUDE, "shop\\.tmp_.*").selection();
        assertThat(s.includes(new Namespace("shop", "orders"))).isTrue();
        assertThat(s.includes(new Namespace("shop", "tmp_1"))).isFalse();
        assertThat(s.includes(new Namespace("crm", "people"))).isTrue();
        assertThat(s.includes(new Namespace("crm", "people2"))).isFalse();
        assertThat(s.includes(new Namespace("crm", "companies"))).isFalse();
        assertThat(s.includes(new Namespace("shopping", "orders"))).as("'shop\\\\..*' must not match shopping.orders").isFalse();
        // a partial match is not enough: the regex must match the whole db.coll
        SelectionSettings partial = config(SelectionSettings.COLLECTION_INCLUDE, "orders").selection();
        assertThat(partial.includes(new Namespace("shop", "orders"))).isFalse();
    }

    @Test
    void databaseIncludeAndExclude() {
        SelectionSettings s = config(SelectionSettings.DATABASE_INCLUDE, "shop.*", SelectionSettings.DATABASE_EXCLUDE, "shop_test").selection();
        assertThat(s.includes(new Namespace("shop", "orders"))).isTrue();
        assertThat(s.includes(new Namespace("shop_eu", "orders"))).isTrue();
        assertThat(s.includes(new Namespace("shop_test", "orders"))).isFalse();
        assertThat(s.includes(new Namespace("crm", "people"))).isFalse();
    }

    @Test
    void excludeWinsOverInclude() {
        SelectionSettings s = config(SelectionSettings.COLLECTION_INCLUDE, "shop\\.orders",
                SelectionSettings.COLLECTION_EXCLUDE, "shop\\.orders").selection();
        assertThat(s.includes(new Namespace("shop", "orders"))).isFalse();
    }
}
