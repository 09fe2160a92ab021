package dev.tideline.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The connector examples in {@code config/}: every {@code *.json} file, found by pattern (so examples
 * added later are checked too), as {@code {"name": ..., "config": {...}}}, with placeholders
 * ({@code ${MONGO_URI}}, {@code ${file:...:destination.uri}}) replaced by a real URI.
 */
public final class ConfigExamples {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{[^}]+}");
    /** what {@code ${file:...:peer.stamp.key}} stands for in the examples: a secret of the length 'openssl rand -base64 32' gives */
    public static final String PEER_STAMP_KEY = "dGlkZWxpbmUtcGVlci10ZXN0LWtleS0zMmJ5dGVzISE=";

    /** One example: the file, its connector name and its config with placeholders substituted. */
    public record Example(Path file, String name, Map<String, String> config) {
        public String connectorClass() {
            return config.get("connector.class");
        }

        @Override
        public String toString() {
            return configDir().relativize(file).toString();
        }
    }

    private ConfigExamples() {
    }

    public static Path configDir() {
        Path dir = Path.of(System.getProperty("user.dir")).resolve("config");
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no config/ directory under " + dir.getParent());
        }
        return dir;
    }

    /** Every file under config/ with the given extension. */
    public static List<Path> files(String extension) {
        try (Stream<Path> s = Files.walk(configDir())) {
            return s.filter(p -> p.getFileName().toString().endsWith("." + extension)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Example> connectors(String uri) {
        return files("json").stream().map(f -> read(f, uri)).toList();
    }

    static Example read(Path file, String uri) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalStateException(file + " is not valid JSON: " + e.getMessage(), e);
        }
        JsonNode config = root.path("config");
        if (!root.path("name").isTextual() || !config.isObject()) {
            throw new IllegalStateException(file + " must be {\"name\": ..., \"config\": {...}} as POST /connectors takes");
        }
        Map<String, String> props = new LinkedHashMap<>();
        config.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) {
                throw new IllegalStateException(file + ": " + e.getKey() + " must be a string (Connect configs are strings)");
            }
            // a peer link's shared secret stands for a secret, every other placeholder for a URI
            String value = e.getKey().startsWith("peer.stamp.key") ? PEER_STAMP_KEY : uri;
            props.put(e.getKey(), PLACEHOLDER.matcher(e.getValue().asText()).replaceAll(java.util.regex.Matcher.quoteReplacement(value)));
        });
        props.put("name", root.get("name").asText());
        return new Example(file, root.get("name").asText(), props);
    }
}
