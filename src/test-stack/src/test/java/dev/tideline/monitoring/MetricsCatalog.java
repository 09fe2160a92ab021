package dev.tideline.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the monitoring files promise: the Prometheus JMX exporter rules (monitoring/prometheus), the metrics table in
 * docs/metrics.md and the metric names the Grafana dashboard's queries use. Read by the tests that keep them equal
 * to each other (MetricsRulesTest) and to a live scrape (PrometheusMetricsIT).
 */
public final class MetricsCatalog {
    public static final Path RULES = Path.of("monitoring", "prometheus", "tideline-jmx-exporter.yml");
    public static final Path DOC = Path.of("docs", "metrics.md");
    public static final Path DASHBOARD = Path.of("monitoring", "grafana", "tideline-dashboard.json");

    /** A rule: the metric it makes, its type, its label names and the MBean attribute its pattern reads. */
    public record Rule(String name, String type, Set<String> labels, String attribute, String pattern) {
    }

    /** A row of the doc's table. */
    public record Documented(String name, String type, Set<String> labels, String attribute) {
    }

    private static final Pattern ATTRIBUTE = Pattern.compile("><>(\\w+):");
    private static final Pattern TABLE_ROW = Pattern.compile("^\\| `(tideline_\\w+)` \\| (\\w+) \\| ([^|]*) \\| [^|]* \\| `(\\w+)` \\|.*$");
    private static final Pattern METRIC_IN_QUERY = Pattern.compile("\\b(tideline_\\w+)");

    private MetricsCatalog() {
    }

    public static List<Rule> rules() {
        JsonNode root = yaml(RULES);
        List<Rule> rules = new ArrayList<>();
        for (JsonNode r : root.path("rules")) {
            String pattern = r.path("pattern").asText();
            Matcher attr = ATTRIBUTE.matcher(pattern);
            if (!attr.find()) {
                throw new IllegalStateException(RULES + ": a rule's pattern names no attribute: " + pattern);
            }
            Set<String> labels = new TreeSet<>();
            r.path("labels").fieldNames().forEachRemaining(labels::add);
            rules.add(new Rule(r.path("name").asText(), r.path("type").asText(), labels, attr.group(1), pattern));
        }
        return rules;
    }

    public static JsonNode rulesFile() {
        return yaml(RULES);
    }

    /** The rows of the metrics table, by metric name. */
    public static Map<String, Documented> documented() {
        Map<String, Documented> rows = new LinkedHashMap<>();
        for (String line : lines(DOC)) {
            Matcher m = TABLE_ROW.matcher(line);
            if (m.matches()) {
                Set<String> labels = new TreeSet<>();
                for (String l : m.group(3).split(",")) {
                    if (!l.isBlank()) {
                        labels.add(l.trim().replace("`", ""));
                    }
                }
                if (rows.put(m.group(1), new Documented(m.group(1), m.group(2), labels, m.group(4))) != null) {
                    throw new IllegalStateException(DOC + " lists " + m.group(1) + " twice");
                }
            }
        }
        return rows;
    }

    /** Every {@code tideline_*} metric a dashboard query names, by panel title. */
    public static Map<String, Set<String>> dashboardMetrics() {
        JsonNode dashboard;
        try {
            dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DASHBOARD, e);
        }
        Map<String, Set<String>> byPanel = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            Set<String> names = new TreeSet<>();
            for (JsonNode target : panel.path("targets")) {
                Matcher m = METRIC_IN_QUERY.matcher(target.path("expr").asText());
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
            if (panel.path("targets").size() > 0) {
                byPanel.put(panel.path("title").asText(), names);
            }
        }
        return byPanel;
    }

    private static JsonNode yaml(Path file) {
        try {
            return new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
