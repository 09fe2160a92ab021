package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
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
        assertThat(jars(GATEWAY_LIB)).anyMatch(j -> j.startsWith("tideline-gateway-"))
                .anyMatch(j -> j.startsWith("tideline-shared-"))
                .anyMatch(j -> j.startsWith("kafka-clients-"))
                .anyMatch(j -> j.startsWith("netty-codec-http-"))
                .anyMatch(j -> j.startsWith("bson-"))
                .anyMatch(j -> j.startsWith("slf4j-simple-"));
    }

    @Test
    void thePluginCarriesNoneOfTheGatewaysJars() throws IOException {
        assertThat(jars(PLUGIN_LIB)).noneMatch(j -> j.startsWith("netty-") || j.startsWith("kafka-clients")
                || j.startsWith("connect-api") || j.startsWith("slf4j-") || j.startsWith("tideline-gateway"));
    }

    @Test
    void eachShippedArtifactHoldsOnlyItsOwnCode() throws IOException {
        // the plugin: no gateway classes or web assets, in the directory and in the zip
        List<Path> pluginJars = tidelineJars(PLUGIN_LIB);
        assertThat(pluginJars).extracting(p -> p.getFileName().toString())
                .anyMatch(j -> j.startsWith("tideline-connect-")).anyMatch(j -> j.startsWith("tideline-shared-"));
        for (Path jar : pluginJars) {
            assertThat(entries(jar)).as(jar.toString()).isNotEmpty().noneMatch(FanoutPackagingIT::isGatewayEntry);
        }
        Path zip;
        try (Stream<Path> files = Files.list(PLUGIN_LIB.getParent().getParent().getParent())) {
            zip = files.filter(p -> p.getFileName().toString().matches("tideline-mongodb-.*\\.zip")).findFirst().orElseThrow();
        }
        try (ZipFile z = new ZipFile(zip.toFile())) {
            List<String> jarsInZip = z.stream().map(ZipEntry::getName).filter(n -> n.contains("/lib/tideline-")).toList();
            assertThat(jarsInZip).hasSize(2);
            for (String name : jarsInZip) {
                Path copy = Files.createTempFile("plugin-jar", ".jar");
                try (InputStream in = z.getInputStream(z.getEntry(name))) {
                    Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                }
                assertThat(entries(copy)).as(name).isNotEmpty().noneMatch(FanoutPackagingIT::isGatewayEntry);
                Files.delete(copy);
            }
        }
        // the gateway: no Connect API, none of the connectors' classes
        assertThat(jars(GATEWAY_LIB)).noneMatch(j -> j.startsWith("connect-") || j.startsWith("mongodb-driver")
                || j.startsWith("tideline-connect"));
        List<Path> gatewayJars = tidelineJars(GATEWAY_LIB);
        assertThat(gatewayJars).hasSize(2);
        List<String> gatewayEntries = new ArrayList<>();
        for (Path jar : gatewayJars) {
            gatewayEntries.addAll(entries(jar));
        }
        assertThat(gatewayEntries).anyMatch(e -> e.startsWith("dev/tideline/fanout/"))
                .anyMatch(e -> e.startsWith("dev/tideline/event/"))
                .noneMatch(e -> e.startsWith("dev/tideline/source/") || e.startsWith("dev/tideline/sink/")
                        || e.startsWith("dev/tideline/peer/") || e.startsWith("dev/tideline/verify/")
                        || e.startsWith("dev/tideline/record/") || e.startsWith("org/apache/kafka/connect/"));
    }

    private static boolean isGatewayEntry(String entry) {
        return entry.startsWith("dev/tideline/fanout/") || entry.endsWith(".html") || entry.endsWith(".js");
    }

    private static List<Path> tidelineJars(Path lib) throws IOException {
        try (Stream<Path> files = Files.list(lib)) {
            return files.filter(p -> p.getFileName().toString().startsWith("tideline-")).toList();
        }
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.stream().map(JarEntry::getName).toList();
        }
    }
}
