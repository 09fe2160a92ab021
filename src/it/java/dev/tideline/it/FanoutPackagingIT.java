package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The gateway ships as its own directory; none of its server and Kafka jars leak into the Connect plugin. */
class FanoutPackagingIT {
    private static final Path PLUGIN_LIB = Path.of(System.getProperty("tideline.plugin.dir", "target/connect-plugin"))
            .resolve("tideline-mongodb").resolve("lib");
    private static final Path GATEWAY_LIB = Path.of(System.getProperty("tideline.fanout.gateway.dir", "target/fanout-gateway"))
            .resolve("lib");

    private static List<String> jars(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void theGatewayDirectoryCarriesWhatItRuns() throws IOException {
        assertThat(jars(GATEWAY_LIB)).anyMatch(j -> j.startsWith("tideline-mongodb-"))
                .anyMatch(j -> j.startsWith("kafka-clients-"))
                .anyMatch(j -> j.startsWith("netty-codec-http-"))
                .anyMatch(j -> j.startsWith("bson-"))
                .anyMatch(j -> j.startsWith("slf4j-simple-"));
    }

    @Test
    void thePluginCarriesNoneOfTheGatewaysJars() throws IOException {
        assertThat(jars(PLUGIN_LIB)).noneMatch(j -> j.startsWith("netty-") || j.startsWith("kafka-clients")
                || j.startsWith("connect-api") || j.startsWith("slf4j-"));
    }

    @Test
    void eachShippedArtifactHoldsOnlyItsOwnCode() throws IOException {
        // the plugin: no gateway classes or web assets, in the directory and in the zip
        for (Path jar : tidelineJars(PLUGIN_LIB)) {
            assertThat(entries(jar)).as(jar.toString()).isNotEmpty()
                    .noneMatch(e -> e.startsWith("dev/tideline/fanout/") || e.endsWith(".html") || e.endsWith(".js"));
        }
        Path zip;
        try (Stream<Path> files = Files.list(PLUGIN_LIB.getParent().getParent().getParent())) {
            zip = files.filter(p -> p.getFileName().toString().matches("tideline-mongodb-.*\\.zip")).findFirst().orElseThrow();
        }
        try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(zip.toFile())) {
            List<String> jarsInZip = z.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(n -> n.contains("/lib/tideline-mongodb-")).toList();
            assertThat(jarsInZip).hasSize(1);
            Path copy = Files.createTempFile("plugin-jar", ".jar");
            try (java.io.InputStream in = z.getInputStream(z.getEntry(jarsInZip.get(0)))) {
                Files.copy(in, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            assertThat(entries(copy)).noneMatch(e -> e.startsWith("dev/tideline/fanout/"));
            Files.delete(copy);
        }
        // the gateway: no Connect API, none of the connectors' classes
        assertThat(jars(GATEWAY_LIB)).noneMatch(j -> j.startsWith("connect-") || j.startsWith("mongodb-driver"));
        List<Path> gatewayJars = tidelineJars(GATEWAY_LIB);
        assertThat(gatewayJars).hasSize(1);
        assertThat(entries(gatewayJars.get(0))).anyMatch(e -> e.startsWith("dev/tideline/fanout/"))
                .anyMatch(e -> e.startsWith("dev/tideline/event/"))
                .noneMatch(e -> e.startsWith("dev/tideline/source/") || e.startsWith("dev/tideline/sink/")
                        || e.startsWith("dev/tideline/peer/") || e.startsWith("dev/tideline/verify/")
                        || e.startsWith("dev/tideline/record/"));
    }

    private static List<Path> tidelineJars(Path lib) throws IOException {
        try (Stream<Path> files = Files.list(lib)) {
            return files.filter(p -> p.getFileName().toString().startsWith("tideline-mongodb-")).toList();
        }
    }

    private static List<String> entries(Path jar) throws IOException {
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            return j.stream().map(java.util.jar.JarEntry::getName).toList();
        }
    }
}
