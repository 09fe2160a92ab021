package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.TidelineVersion;
import dev.tideline.sink.TidelineSinkConnector;
import dev.tideline.source.TidelineSourceConnector;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * One version, from the build: the packaged manifest.json, both connectors' version() and the
 * CHANGELOG's current entry agree with the POM's project.version (the failsafe run's).
 */
class PluginVersionIT {
    @Test
    void manifestConnectorsAndChangelogCarryTheBuildVersion() throws Exception {
        Path project = Path.of(System.getProperty("user.dir"));
        String version = TidelineVersion.get();
        JsonNode manifest = new ObjectMapper().readTree(project.resolve("target/connect-plugin/tideline-mongodb/manifest.json").toFile());
        String pom = Files.readString(project.resolve("pom.xml"));
        String pomVersion = pom.replaceAll("(?s).*?<artifactId>tideline-mongodb</artifactId>\\s*<version>([^<]+)</version>.*", "$1");

        assertThat(version).isEqualTo(pomVersion);
        assertThat(manifest.get("version").asText()).isEqualTo(version);
        assertThat(new TidelineSourceConnector().version()).isEqualTo(version);
        assertThat(new TidelineSinkConnector().version()).isEqualTo(version);
        assertThat(Files.readString(project.resolve("CHANGELOG.md"))).contains(version.replace("-SNAPSHOT", ""));
        System.out.println("PluginVersionIT: manifest, connectors, POM and CHANGELOG at " + version);
    }
}
