package dev.tideline.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A connector example from {@code config/} (the one source of truth for what users run), with its
 * placeholders filled in for the sandbox: {@code ${NAME}} and Connect config-provider references
 * {@code ${provider:path:key}} are replaced by the value the sandbox has for {@code NAME} or
 * {@code key}. A placeholder it has no value for is an error, not a literal passed on.
 */
record ConnectorExample(String name, Map<String, String> config) {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(?:[a-zA-Z]+:[^}]*:)?([^}:]+)}");

    static ConnectorExample load(Path file, Map<String, String> values) {
        JsonNode example;
        try {
            example = new ObjectMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the connector example " + file, e);
        }
        Map<String, String> config = new LinkedHashMap<>();
        example.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), substitute(file, e.getValue().asText(), values)));
        return new ConnectorExample(example.path("name").asText(), config);
    }

    static String substitute(Path file, String text, Map<String, String> values) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException(file + ": the sandbox has no value for " + m.group() + " (it knows " + values.keySet() + ")");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return m.appendTail(out).toString();
    }

    String connectorClass() {
        return config.get("connector.class");
    }
}
