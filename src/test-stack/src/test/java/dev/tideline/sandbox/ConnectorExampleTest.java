package dev.tideline.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectorExampleTest {
    private static final Map<String, String> VALUES = Map.of("MONGO_URI", "mongodb://src:1/", "destination.uri", "mongodb://dst:2/");

    @Test
    void fillsPlainAndConfigProviderPlaceholders() {
        assertThat(ConnectorExample.substitute(Path.of("x.json"), "${MONGO_URI}", VALUES)).isEqualTo("mongodb://src:1/");
        assertThat(ConnectorExample.substitute(Path.of("x.json"),
                "${file:/etc/kafka-connect/secrets.properties:destination.uri}", VALUES)).isEqualTo("mongodb://dst:2/");
        assertThat(ConnectorExample.substitute(Path.of("x.json"), "tideline\\.shop\\..*", VALUES)).isEqualTo("tideline\\.shop\\..*");
    }

    @Test
    void aPlaceholderWithoutAValueIsAnError() {
        assertThatThrownBy(() -> ConnectorExample.substitute(Path.of("x.json"), "${file:/s.properties:archive.uri}", VALUES))
                .hasMessageContaining("x.json").hasMessageContaining("archive.uri");
    }

    @Test
    void theExamplesTheSandboxRunsResolveCompletely() {
        ConnectorExample source = ConnectorExample.load(Path.of("config", "source-example.json"), VALUES);
        ConnectorExample sink = ConnectorExample.load(Path.of("config", "sink-example.json"), VALUES);
        assertThat(source.config().get("mongodb.uri")).isEqualTo("mongodb://src:1/");
        assertThat(sink.config().get("mongodb.uri")).isEqualTo("mongodb://dst:2/");
        assertThat(source.config().get("database.include")).isNotBlank();
        assertThat(sink.config().get("database")).isNotBlank();
        assertThat(sink.name()).isNotBlank();
    }
}
