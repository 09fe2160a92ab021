package dev.tideline.sink.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.sink.TidelineSinkConnector;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class SinkConfigTest {
    private static Map<String, List<String>> errors(Map<String, String> props) {
        return new TidelineSinkConnector().validate(props).configValues().stream()
                .collect(Collectors.toMap(ConfigValue::name, ConfigValue::errorMessages));
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void everyKeyIsDocumentedWithGroupAndImportance() {
        ConfigDef def = SinkConfig.configDef();
        assertThat(def.names()).containsExactlyInAnyOrder("mongodb.uri", "mongodb.connect.timeout.ms", "database",
                "topic.namespace.map", "collection.include", "collection.exclude", "write.mode", "tombstone.action",
                "stale.guard", "version.field", "bulk.chunk.size", "retry.backoff.initial.ms", "retry.backoff.max.ms",
                "peer.cluster.id", "peer.tombstone.ttl.ms", "peer.status.database", "peer.lag.degraded.ms", "peer.tenants",
                "peer.heartbeat.namespace", "peer.heartbeat.interval.ms", "peer.clock.max.ahead.ms", "peer.stamp.key",
                "peer.stamp.key.previous", "peer.stamp.unsigned.before", "database.allow", "record.max.bytes", "shard.key.fields",
                "duplicate.key.retry.ms", "record.signing.key", "record.signing.key.previous", "version.max.ahead.ms");
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            assertThat(key.documentation).as(key.name).isNotBlank();
            assertThat(key.group).as(key.name).isNotBlank();
            assertThat(key.importance).as(key.name).isNotNull();
        }
        assertThat(def.configKeys().get("mongodb.uri").type).isEqualTo(ConfigDef.Type.PASSWORD);
    }

    @Test
    void validateAsksASinkThatVerifiesSignaturesForATextHeaderConverter() throws Exception {
        Map<String, String> props = new java.util.HashMap<>(Map.of("mongodb.uri", "mongodb://127.0.0.1:" + closedPort()
                + "/?serverSelectionTimeoutMS=200", "mongodb.connect.timeout.ms", "200",
                "record.signing.key", "the record signing key of the deployment"));
        assertThat(errors(props).get("record.signing.key")).singleElement().asString().contains("header.converter");
        props.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
        assertThat(errors(props).get("record.signing.key")).isEmpty();
    }

    @Test
    void defaultsAndTypedGetters() {
        SinkConfig c = new SinkConfig(Map.of("mongodb.uri", "mongodb://h:1"));
        assertThat(c.writes().writeMode()).isEqualTo(WriteMode.UPSERT);
        assertThat(c.writes().tombstoneAction()).isEqualTo(TombstoneAction.DELETE);
        assertThat(c.writes().staleGuard()).isEqualTo(StaleGuardMode.AUTO);
        assertThat(c.writes().bulkChunkSize()).isEqualTo(1000);
        assertThat(c.routing().database()).isEmpty();
        assertThat(c.tolerateAll()).isFalse();
        assertThat(c.toString()).doesNotContain("mongodb://h:1");
    }

    @Test
    void outOfRangeAndUnknownValuesAreRefused() {
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "bulk.chunk.size", "1001")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("bulk.chunk.size");
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "write.mode", "merge")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("write.mode");
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "database", "shop.replica")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("database").hasMessageContaining("'.'");
    }

    @Test
    void peerModeNeedsAWellFormedClusterIdAndHasItsOwnTask() {
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "peer.cluster.id", "eu west")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("peer.cluster.id");
        SinkConfig peer = new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "peer.cluster.id", "eu-west"));
        assertThat(peer.peer().clusterId()).contains("eu-west");
        assertThat(new SinkConfig(Map.of("mongodb.uri", "mongodb://h")).peer().enabled()).isFalse();
        dev.tideline.sink.TidelineSinkConnector connector = new dev.tideline.sink.TidelineSinkConnector();
        connector.start(Map.of("mongodb.uri", "mongodb://h", "peer.cluster.id", "eu-west"));
        assertThat(connector.taskClass()).isEqualTo(dev.tideline.peer.sink.PeerSinkTask.class);
        connector.start(Map.of("mongodb.uri", "mongodb://h"));
        assertThat(connector.taskClass()).isEqualTo(dev.tideline.sink.TidelineSinkTask.class);
    }

    @Test
    void validateReportsEachProblemOnItsOwnKey() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("mongodb.uri", "mongodb://alice:s3cr3t-pw@127.0.0.1:" + closedPort() + "/?serverSelectionTimeoutMS=500");
        props.put("mongodb.connect.timeout.ms", "500");
        props.put("collection.include", "shop\\..*,broken[");
        props.put("topic.namespace.map", "{\"t\": ");
        props.put("retry.backoff.initial.ms", "5000");
        props.put("retry.backoff.max.ms", "100");

        Map<String, List<String>> errors = errors(props);

        System.out.println("validate errors: " + errors);
        assertThat(errors.get("collection.include")).singleElement().asString().contains("broken[");
        assertThat(errors.get("topic.namespace.map")).singleElement().asString().contains("not a JSON object");
        assertThat(errors.get("retry.backoff.max.ms")).singleElement().asString().contains("at least");
        assertThat(errors.get("mongodb.uri")).singleElement().asString()
                .contains("cannot reach the destination at 127.0.0.1").doesNotContain("s3cr3t-pw");
        assertThat(errors.get("collection.exclude")).isEmpty();
    }

    @Test
    void destinationDatabasesNeverIncludeMongoDbsOwnAndTheAllowListMustCoverWhatTheSettingsName() throws Exception {
        for (String db : new String[] {"admin", "config", "local", "Admin", "LOCAL"}) {
            assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "database", db)))
                    .as(db).isInstanceOf(ConfigException.class).hasMessageContaining("database").hasMessageContaining("never writes");
            assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "database.allow", "shop," + db)))
                    .as(db).isInstanceOf(ConfigException.class).hasMessageContaining("database.allow");
        }
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "topic.namespace.map", "{\"t\": \"admin.users\"}")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("admin");
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "topic.namespace.map",
                "{\"t\": \"shop._tideline_versions\"}"))).isInstanceOf(ConfigException.class).hasMessageContaining("_tideline");
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "topic.namespace.map", "{\"t\": \"shop.system.views\"}")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("system");
        SinkConfig c = new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "database.allow", " shop_replica , archive "));
        assertThat(c.safety().allowedDatabases()).containsExactly("shop_replica", "archive");
        assertThat(new SinkConfig(Map.of("mongodb.uri", "mongodb://h")).safety().allowedDatabases()).isEmpty();

        Map<String, String> props = new HashMap<>();
        props.put("mongodb.uri", "mongodb://127.0.0.1:" + closedPort() + "/?serverSelectionTimeoutMS=500");
        props.put("mongodb.connect.timeout.ms", "500");
        props.put("database", "shop_replica");
        props.put("topic.namespace.map", "{\"audit\": \"audit.events\", \"x\": \"shop_replica.x\"}");
        props.put("database.allow", "shop_replica");
        Map<String, List<String>> errors = errors(props);
        assertThat(errors.get("database.allow")).singleElement().asString().contains("'audit'").contains("not in database.allow");
        props.put("database.allow", "shop_replica,audit");
        assertThat(errors(props).get("database.allow")).isEmpty();
    }

    @Test
    void retryBackoffMaxBelowInitialIsRefusedOnTheMaxKey() {
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "retry.backoff.initial.ms", "5000",
                "retry.backoff.max.ms", "100")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 100 for configuration retry.backoff.max.ms: must be at least retry.backoff.initial.ms (5000)");
        RetrySettings retry = new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "retry.backoff.initial.ms", "100",
                "retry.backoff.max.ms", "100", "duplicate.key.retry.ms", "0")).retry();
        assertThat(retry.initialBackoffMs()).isEqualTo(100);
        assertThat(retry.maxBackoffMs()).isEqualTo(100);
        assertThat(retry.duplicateKeyRetryMs()).isZero();
    }

    @Test
    void eachFragmentReadsItsValues() {
        Map<String, String> props = new HashMap<>();
        props.put("mongodb.uri", "mongodb://h");
        props.put("database", " replica ");
        props.put("topic.namespace.map", "{\"t\": \"archive.orders\"}");
        props.put("collection.include", "shop\\..*");
        props.put("collection.exclude", "shop\\.tmp");
        props.put("write.mode", "update");
        props.put("tombstone.action", "ignore");
        props.put("stale.guard", "off");
        props.put("version.field", " updatedAt ");
        props.put("bulk.chunk.size", "250");
        props.put("shard.key.fields", "region, customerId");
        props.put("peer.cluster.id", "eu-west");
        props.put("peer.tombstone.ttl.ms", "120000");
        props.put("peer.status.database", " status ");
        props.put("peer.lag.degraded.ms", "5000");
        props.put("peer.tenants", " a , ,b ");
        props.put("peer.heartbeat.namespace", " app.tideline_peer_heartbeats ");
        props.put("peer.heartbeat.interval.ms", "1000");
        props.put("peer.clock.max.ahead.ms", "2000");
        props.put("record.max.bytes", "4096");
        SinkConfig c = new SinkConfig(props);

        assertThat(c.routing().database()).contains("replica");
        assertThat(c.routing().topicMap().lookup("t")).hasValueSatisfying(t -> {
            assertThat(t.db()).contains("archive");
            assertThat(t.coll()).isEqualTo("orders");
        });
        assertThat(c.routing().filter().accepts("shop.orders")).isTrue();
        assertThat(c.routing().filter().accepts("shop.tmp")).isFalse();
        assertThat(c.routing().filter().accepts("crm.people")).isFalse();
        assertThat(c.writes().writeMode()).isEqualTo(WriteMode.UPDATE);
        assertThat(c.writes().tombstoneAction()).isEqualTo(TombstoneAction.IGNORE);
        assertThat(c.writes().staleGuard()).isEqualTo(StaleGuardMode.OFF);
        assertThat(c.writes().versionField()).contains("updatedAt");
        assertThat(c.writes().bulkChunkSize()).isEqualTo(250);
        assertThat(c.writes().shardKeyFields()).containsExactly("region", "customerId");
        assertThat(c.peer().enabled()).isTrue();
        assertThat(c.peer().tombstoneTtlMs()).isEqualTo(120_000);
        assertThat(c.peer().statusDatabase()).isEqualTo("status");
        assertThat(c.peer().lagDegradedMs()).isEqualTo(5_000);
        assertThat(c.peer().tenants()).containsExactly("a", "b");
        assertThat(c.peer().heartbeatNamespace()).contains("app.tideline_peer_heartbeats");
        assertThat(c.peer().heartbeatIntervalMs()).isEqualTo(1_000);
        assertThat(c.peer().clockMaxAheadMs()).isEqualTo(2_000);
        assertThat(c.peer().keys()).as("no peer.stamp.key").isNull();
        assertThat(c.safety().maxRecordBytes()).isEqualTo(4096);

        SinkConfig defaults = new SinkConfig(Map.of("mongodb.uri", "mongodb://h"));
        assertThat(defaults.writes().versionField()).isEmpty();
        assertThat(defaults.writes().shardKeyFields()).isEmpty();
        assertThat(defaults.peer().clusterId()).isEmpty();
        assertThat(defaults.peer().tenants()).isEmpty();
        assertThat(defaults.peer().heartbeatNamespace()).isEmpty();
        assertThat(defaults.peer().statusDatabase()).isEqualTo("tideline");
    }

    @Test
    void recordSizeLimitHasASaneDefaultAndRange() {
        assertThat(new SinkConfig(Map.of("mongodb.uri", "mongodb://h")).safety().maxRecordBytes()).isEqualTo(48L * 1024 * 1024);
        assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "record.max.bytes", "10")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("record.max.bytes");
    }

    @Test
    void versionsMayBeMinutesAheadByDefaultAndAtMostADay() {
        assertThat(new SinkConfig(Map.of("mongodb.uri", "mongodb://h")).safety().versionMaxAheadMs()).isEqualTo(300_000L);
        assertThat(new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "version.max.ahead.ms", "86400000")).safety()
                .versionMaxAheadMs()).isEqualTo(86_400_000L);
        for (String bad : new String[] {"999", "86400001", "-1"}) {
            assertThatThrownBy(() -> new SinkConfig(Map.of("mongodb.uri", "mongodb://h", "version.max.ahead.ms", bad)))
                    .isInstanceOf(ConfigException.class).hasMessageContaining("version.max.ahead.ms");
        }
    }
}
