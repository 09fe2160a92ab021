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
}
