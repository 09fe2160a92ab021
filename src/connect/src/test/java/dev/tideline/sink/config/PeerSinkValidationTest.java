package dev.tideline.sink.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/** What validate() refuses in peer mode, on the key at fault: settings that would break its guarantees. */
class PeerSinkValidationTest {
    private static final String KEY = "a-secret-shared-by-the-link-0123456789";

    private static Map<String, List<String>> errors(Map<String, String> props) {
        Map<String, ConfigValue> values = new HashMap<>();
        SinkConfig.configDef().validate(props).forEach(v -> values.put(v.name(), v));
        PeerSinkSettings.check(props, values);
        Map<String, List<String>> out = new HashMap<>();
        values.forEach((k, v) -> {
            if (!v.errorMessages().isEmpty()) {
                out.put(k, v.errorMessages());
            }
        });
        return out;
    }

    private static Map<String, String> peer() {
        Map<String, String> p = new HashMap<>(Map.of("mongodb.uri", "mongodb://h:1", "peer.cluster.id", "a", "peer.stamp.key", KEY,
                "peer.heartbeat.namespace", "shop.tideline_peer_heartbeats", "errors.tolerance", "all",
                "errors.deadletterqueue.topic.name", "peer-a-dlq"));
        return p;
    }

    @Test
    void aCompletePeerConfigurationPasses() {
        assertThat(errors(peer())).isEmpty();
        assertThat(errors(Map.of("mongodb.uri", "mongodb://h:1"))).as("not peer mode: nothing required").isEmpty();
    }

    @Test
    void moreThanOneTaskIsRefused() {
        Map<String, String> p = peer();
        p.put("tasks.max", "2");
        assertThat(errors(p).get("peer.cluster.id")).singleElement().asString().contains("tasks.max=1");
    }

    @Test
    void theStampKeyIsRequiredAndLongEnough() {
        Map<String, String> p = peer();
        p.remove("peer.stamp.key");
        assertThat(errors(p).get("peer.stamp.key")).singleElement().asString().contains("required");
        p.put("peer.stamp.key", "short");
        assertThat(errors(p).get("peer.stamp.key")).singleElement().asString().contains("at least 32").doesNotContain("short");
    }

    @Test
    void heartbeatsAreRequiredAndMustBeInACapturedCollection() {
        Map<String, String> p = peer();
        p.remove("peer.heartbeat.namespace");
        assertThat(errors(p).get("peer.heartbeat.namespace")).singleElement().asString().contains("dead link");
        p.put("peer.heartbeat.namespace", "shop._tideline_peer_heartbeats");
        assertThat(errors(p).get("peer.heartbeat.namespace")).singleElement().asString().contains("never capture");
    }

    @Test
    void aDeadLetterQueueIsRequiredSoThatARefusedRecordIsKeptAndTheTaskGoesOn() {
        Map<String, String> p = peer();
        p.remove("errors.deadletterqueue.topic.name");
        assertThat(errors(p).get("peer.cluster.id")).singleElement().asString().contains("errors.deadletterqueue.topic.name");
        p = peer();
        p.put("errors.tolerance", "none");
        assertThat(errors(p).get("peer.cluster.id")).singleElement().asString().contains("errors.tolerance=all");
    }

    @Test
    void theUnsignedCutOffIsAnInstantInConfiguration() {
        Map<String, String> p = peer();
        p.put("peer.stamp.unsigned.before", "yesterday");
        assertThat(errors(p).get("peer.stamp.unsigned.before")).singleElement().asString().contains("ISO-8601");
        p.put("peer.stamp.unsigned.before", "2026-01-31T12:00:00Z");
        assertThat(errors(p)).isEmpty();
        assertThat(new SinkConfig(p).peer().unsignedBeforeSeconds()).isEqualTo(java.time.Instant.parse("2026-01-31T12:00:00Z")
                .getEpochSecond());
        assertThat(new SinkConfig(peer()).peer().unsignedBeforeSeconds()).as("unset: no unsigned stamp is trusted").isZero();
    }

    @Test
    void aSinkThatVerifiesSignaturesMustReadHeadersAsText() {
        Map<String, String> p = new HashMap<>(Map.of("mongodb.uri", "mongodb://h:1", "record.signing.key", KEY));
        assertThat(dev.tideline.sign.RecordSigningSettings.headerConverterProblem(p)).contains("header.converter");
        p.put("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
        assertThat(dev.tideline.sign.RecordSigningSettings.headerConverterProblem(p)).contains("not org.apache.kafka.connect.storage.SimpleHeaderConverter");
        p.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
        assertThat(dev.tideline.sign.RecordSigningSettings.headerConverterProblem(p)).isNull();
        assertThat(dev.tideline.sign.RecordSigningSettings.headerConverterProblem(Map.of())).as("not signing: nothing required").isNull();
    }
}
