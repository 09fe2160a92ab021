package dev.tideline.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.sink.TidelineSinkConnector;
import dev.tideline.source.TidelineSourceConnector;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/**
 * Every connector example in config/ parses and passes its connector's ConfigDef validation (the
 * per-key checks; ConfigExamplesIT runs the worker's full validate endpoint, with connectivity).
 */
class ConfigExamplesTest {
    private static final String URI = "mongodb://127.0.0.1:27017/";
    /** Keys (and key prefixes) the Connect framework itself reads from a connector config. */
    private static final List<String> CONNECT_KEYS = List.of("name", "connector.class", "tasks.max", "topics", "topics.regex",
            "key.converter", "value.converter", "header.converter", "errors.", "transforms", "predicates", "topic.creation.",
            "consumer.override.", "producer.override.", "admin.override.", "exactly.once.support", "transaction.boundary",
            "offsets.storage.topic", "config.action.reload");
    private static final List<String> OTHER_CONNECTORS = List.of("com.mongodb.kafka.connect.MongoSourceConnector");

    @Test
    void everyConnectorExamplePassesItsConfigDef() {
        List<ConfigExamples.Example> examples = ConfigExamples.connectors(URI);
        assertThat(examples).hasSizeGreaterThanOrEqualTo(8);
        List<String> problems = new ArrayList<>();
        for (ConfigExamples.Example e : examples) {
            ConfigDef def = switch (e.connectorClass()) {
                case "dev.tideline.source.TidelineSourceConnector" -> new TidelineSourceConnector().config();
                case "dev.tideline.sink.TidelineSinkConnector" -> new TidelineSinkConnector().config();
                default -> null;
            };
            if (def == null) {
                if (!OTHER_CONNECTORS.contains(e.connectorClass())) {
                    problems.add(e + ": unknown connector.class " + e.connectorClass());
                }
                continue; // another project's connector: validated on the worker by ConfigExamplesIT
            }
            for (String key : e.config().keySet()) {
                if (!def.names().contains(key) && CONNECT_KEYS.stream().noneMatch(key::startsWith)) {
                    problems.add(e + ": unknown key " + key + " (a typo? neither the connector's nor Connect's)");
                }
            }
            for (ConfigValue v : def.validate(e.config())) {
                v.errorMessages().forEach(m -> problems.add(e + ": " + v.name() + ": " + m));
            }
            System.out.printf("%s: %s, %d keys, valid%n", e, e.connectorClass(), e.config().size());
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void everyPropertiesFileParsesAndTheWorkerFileIsCompleteEnoughToStartAWorker() throws IOException {
        List<Path> files = ConfigExamples.files("properties");
        assertThat(files).isNotEmpty();
        for (Path f : files) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(f)) {
                p.load(r);
            }
            assertThat(p).as(f.toString()).isNotEmpty();
        }
        Properties worker = new Properties();
        try (Reader r = Files.newBufferedReader(ConfigExamples.configDir().resolve("worker.properties"))) {
            worker.load(r);
        }
        assertThat(worker.stringPropertyNames()).contains("bootstrap.servers", "group.id", "config.storage.topic",
                "offset.storage.topic", "status.storage.topic", "plugin.path");
    }

    @Test
    void placeholdersAreReplacedWithTheGivenUri() {
        Map<String, String> c = ConfigExamples.connectors(URI).stream()
                .filter(e -> e.name().equals("tideline-sink")).findFirst().orElseThrow().config();
        assertThat(c.get("mongodb.uri")).isEqualTo(URI);
    }

    /**
     * A pattern subscription sees a topic created after it started only at its consumer's next metadata
     * refresh (metadata.max.age.ms, 5 minutes by default): every Tideline sink example following
     * topics.regex refreshes within seconds, so a new collection reaches its destination within seconds.
     * (Peer examples are the peer pages' own.)
     */
    @Test
    void everySinkExampleOnATopicPatternRefreshesItsMetadataWithinSeconds() throws IOException {
        List<String> checked = new ArrayList<>();
        for (ConfigExamples.Example e : ConfigExamples.connectors(URI)) {
            if (!e.connectorClass().equals("dev.tideline.sink.TidelineSinkConnector") || !e.config().containsKey("topics.regex")
                    || e.config().containsKey("peer.cluster.id")) {
                continue;
            }
            String age = e.config().get("consumer.override.metadata.max.age.ms");
            assertThat(age).as(e + ": consumer.override.metadata.max.age.ms").isNotNull();
            assertThat(Long.parseLong(age)).as(e.toString()).isBetween(1_000L, 10_000L);
            checked.add(e.toString());
        }
        System.out.println("topics.regex sinks refreshing metadata within seconds: " + checked);
        assertThat(checked).hasSizeGreaterThanOrEqualTo(5);
        Properties worker = new Properties();
        try (Reader r = Files.newBufferedReader(ConfigExamples.configDir().resolve("worker.properties"))) {
            worker.load(r);
        }
        assertThat(worker.getProperty("connector.client.config.override.policy")).isEqualTo("All");
    }
}
