package dev.tideline.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.GatewayMetrics;
import dev.tideline.health.SinkTaskMetricsMBean;
import dev.tideline.health.SourceCollectionMetricsMBean;
import dev.tideline.health.SourceTaskMetricsMBean;
import dev.tideline.monitoring.MetricsCatalog.Documented;
import dev.tideline.monitoring.MetricsCatalog.Rule;
import dev.tideline.peer.sink.PeerLinkMetricsMBean;
import dev.tideline.verify.connect.VerifyTaskMetricsMBean;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus rules, the table in docs/metrics.md, the MBean interfaces and the Grafana dashboard agree: a name
 * added to one and not the others fails here (PrometheusMetricsIT then checks them against a live scrape).
 */
class MetricsRulesTest {
    /** One MBean interface, the object name the exporter sees for it (as the rules are matched) and a sample value per kind. */
    private record Bean(Class<?> mbean, String objectName) {
    }

    private static final List<Bean> BEANS = List.of(
            new Bean(SourceTaskMetricsMBean.class, "dev.tideline<type=source-task, connector=shop-source, task=0>"),
            new Bean(SourceCollectionMetricsMBean.class, "dev.tideline<type=source-task, connector=shop-source, task=0, collection=shop.orders>"),
            new Bean(SinkTaskMetricsMBean.class, "dev.tideline<type=sink-task, connector=shop-sink, task=2, destination=\"h1:27017,h2:27017/shop_copy\">"),
            new Bean(VerifyTaskMetricsMBean.class, "dev.tideline<type=verify-task, connector=shop-verify, task=0>"),
            new Bean(PeerLinkMetricsMBean.class, "dev.tideline<type=peer-sink, connector=shop-link-a, task=0>"),
            new Bean(GatewayMetrics.GatewayMBean.class, "dev.tideline<type=gateway, gateway=8080>"),
            new Bean(GatewayMetrics.TenantMBean.class, "dev.tideline<type=gateway-tenant, gateway=8080, tenant=acme>"),
            new Bean(GatewayMetrics.TopicMBean.class, "dev.tideline<type=gateway-topic, gateway=8080, topic=shop.orders>"),
            new Bean(GatewayMetrics.CounterMBean.class, "dev.tideline<type=gateway-refusals, gateway=8080, status=401, reason=expired>"),
            new Bean(GatewayMetrics.CounterMBean.class, "dev.tideline<type=gateway-disconnects, gateway=8080, reason=slow-consumer>"),
            new Bean(GatewayMetrics.CounterMBean.class, "dev.tideline<type=gateway-resumes, gateway=8080, outcome=unrecoverable-bad-cursor>"),
            new Bean(GatewayMetrics.CounterMBean.class, "dev.tideline<type=gateway-read-backs, gateway=8080, outcome=kafka>"),
            new Bean(GatewayMetrics.CounterMBean.class, "dev.tideline<type=gateway-skips, gateway=8080, reason=no-tenant>"));
    /** String attributes exported as a label with value 1: the value matched is a word. */
    private static final Set<String> ONE_OF_A_SET = Set.of("Health", "Phase", "LastOutcome", "ConsumerState");

    @Test
    void theDocumentedTableIsTheRulesFile() {
        List<Rule> rules = MetricsCatalog.rules();
        Map<String, Documented> doc = MetricsCatalog.documented();
        assertThat(rules.stream().map(Rule::name).distinct().count()).as("one rule per metric").isEqualTo(rules.size());
        assertThat(doc.keySet()).as("the names in " + MetricsCatalog.DOC).containsExactlyInAnyOrderElementsOf(
                rules.stream().map(Rule::name).toList());
        for (Rule r : rules) {
            Documented d = doc.get(r.name());
            assertThat(d.type()).as(r.name() + " type").isEqualTo(r.type().toLowerCase(Locale.ROOT));
            assertThat(d.labels()).as(r.name() + " labels").isEqualTo(r.labels());
            assertThat(d.attribute()).as(r.name() + " attribute").isEqualTo(r.attribute());
            if (r.pattern().contains("<type=gateway")) {
                assertThat(r.labels()).as(r.name() + " labels").contains("gateway").doesNotContain("connector", "task");
            } else {
                assertThat(r.labels()).as(r.name() + " labels").contains("connector", "task");
            }
            for (String key : List.of("collection", "destination", "tenant", "topic")) {
                if (Pattern.compile(", " + key + "=\"?\\(").matcher(r.pattern()).find()) { // the key captured as a label
                    assertThat(r.labels()).as(r.name()).contains(key);
                }
            }
            assertThat(r.name().endsWith("_total")).as(r.name() + ": counters and only counters end in _total")
                    .isEqualTo(r.type().equals("COUNTER"));
        }
        System.out.println(rules.size() + " metrics documented, each with its rule");
    }

    /**
     * Every attribute of every Tideline MBean is matched, as the exporter presents it, by the rule the table gives
     * for it (first match wins, as in the exporter), or is listed as not exported.
     */
    @Test
    void everyMBeanAttributeIsExportedByItsRuleOrListedAsNotExported() throws IOException {
        List<Rule> rules = MetricsCatalog.rules();
        String notExported = Files.readAllLines(MetricsCatalog.DOC).stream().filter(l -> l.startsWith("Not exported"))
                .findFirst().orElseThrow(() -> new AssertionError(MetricsCatalog.DOC + " has no 'Not exported' line"));
        List<String> problems = new ArrayList<>();
        int exported = 0;
        for (Bean bean : BEANS) {
            for (Method m : bean.mbean().getMethods()) {
                String attribute = m.getName().replaceFirst("^(get|is)", "");
                Class<?> t = m.getReturnType();
                boolean numeric = t == long.class || t == int.class || t == double.class || t == boolean.class;
                String sample = t == boolean.class ? "true" : numeric ? "42" : ONE_OF_A_SET.contains(attribute) ? "ok" : null;
                if (sample == null) {
                    if (!notExported.contains("`" + attribute + "`")) {
                        problems.add(bean.mbean().getSimpleName() + "." + attribute + " (" + t.getSimpleName()
                                + ") is neither exported nor listed as not exported");
                    }
                    continue;
                }
                String line = bean.objectName() + "<>" + attribute + ": " + sample;
                Optional<Rule> first = rules.stream().filter(r -> exporterMatches(r, line)).findFirst();
                if (first.isEmpty()) {
                    problems.add("no rule exports " + line);
                } else if (!first.get().attribute().equals(attribute)) {
                    problems.add(line + " is taken by the rule of " + first.get().name() + " (" + first.get().attribute() + ")");
                } else {
                    exported++;
                }
            }
        }
        assertThat(problems).isEmpty();
        System.out.println(exported + " MBean attributes exported by their rules");
    }

    /** A connector name JMX quotes still matches: the label keeps the quotes (docs/metrics.md says so). */
    @Test
    void aQuotedConnectorNameIsMatched() {
        String line = "dev.tideline<type=sink-task, connector=\"a,b\", task=0, destination=\"h1:27017/db\"><>RecordsApplied: 3";
        assertThat(MetricsCatalog.rules().stream().filter(r -> exporterMatches(r, line))
                .map(Rule::name).findFirst()).contains("tideline_sink_records_applied_total");
        Rule applied = MetricsCatalog.rules().stream().filter(r -> r.name().equals("tideline_sink_records_applied_total")).findFirst().orElseThrow();
        java.util.regex.Matcher m = Pattern.compile(applied.pattern()).matcher(line);
        assertThat(m.find()).isTrue();
        assertThat(m.group(1)).as("connector").isEqualTo("\"a,b\"");
        assertThat(m.group(3)).as("destination, without JMX's quotes").isEqualTo("h1:27017/db");
    }

    /** As the exporter matches a rule: anywhere in the line (it wraps the pattern in {@code ^.*(?:...).*$}). */
    private static boolean exporterMatches(Rule rule, String line) {
        return Pattern.compile("^.*(?:" + rule.pattern() + ").*$").matcher(line).matches();
    }

    @Test
    void everyDashboardQueryNamesADocumentedMetric() {
        Set<String> documented = MetricsCatalog.documented().keySet();
        Map<String, Set<String>> panels = MetricsCatalog.dashboardMetrics();
        assertThat(panels).as("panels with queries in " + MetricsCatalog.DASHBOARD).hasSizeGreaterThanOrEqualTo(8);
        Set<String> unknown = new TreeSet<>();
        panels.forEach((title, names) -> {
            assertThat(names).as("the metrics of panel " + title).isNotEmpty();
            names.stream().filter(n -> !documented.contains(n)).map(n -> title + ": " + n).forEach(unknown::add);
        });
        assertThat(unknown).as("queries naming a metric the rules do not make").isEmpty();
        System.out.println(panels.size() + " dashboard panels, metrics used: "
                + panels.values().stream().flatMap(Set::stream).collect(Collectors.toCollection(TreeSet::new)));
    }
}
