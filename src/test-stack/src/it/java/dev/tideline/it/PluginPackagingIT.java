package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/** The built plugin, as a user installs it: found by a real worker, without the worker's own jars. */
class PluginPackagingIT {
    private static final Path PLUGIN_DIR = Path.of(System.getProperty("tideline.plugin.dir", "target/connect-plugin"))
            .resolve("tideline-mongodb");

    @Test
    void workerListsTheSourceConnector() {
        List<String> plugins = TestStack.shared().rest().connectorPlugins();

        assertThat(plugins).contains("dev.tideline.source.TidelineSourceConnector",
                "dev.tideline.sink.TidelineSinkConnector");
    }

    @Test
    void workerAlsoLoadsTheOfficialConnectorThatInteropTestsCompareWith() {
        List<String> plugins = TestStack.shared().rest().connectorPlugins();

        assertThat(plugins).contains("com.mongodb.kafka.connect.MongoSourceConnector",
                "com.mongodb.kafka.connect.MongoSinkConnector");
    }

    @Test
    void libDoesNotShipTheJarsTheWorkerProvides() throws IOException {
        List<String> jars;
        try (Stream<Path> files = Files.list(PLUGIN_DIR.resolve("lib"))) {
            jars = files.map(p -> p.getFileName().toString()).collect(Collectors.toList());
        }

        assertThat(jars).anyMatch(name -> name.startsWith("tideline-connect-")).anyMatch(name -> name.startsWith("tideline-shared-"));
        // Two copies of the Connect API (ours and the worker's) break class identity at runtime.
        assertThat(jars).noneMatch(name -> name.startsWith("kafka-clients") || name.startsWith("connect-api"));
    }

    @Test
    void zipHasTheManifestAtTheTopLevelDirectory() throws IOException {
        Path zip;
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            zip = files.filter(p -> p.getFileName().toString().matches("tideline-mongodb-.*\\.zip"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no target/tideline-mongodb-*.zip: run mvn package"));
        }

        try (ZipFile file = new ZipFile(zip.toFile())) {
            List<String> entries = file.stream().map(ZipEntry::getName).collect(Collectors.toList());
            assertThat(entries).contains("tideline-mongodb/manifest.json");
        }
    }
}
