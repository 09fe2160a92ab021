package dev.tideline.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tideline.config.ConfigExamples;
import dev.tideline.monitoring.MetricsCatalog;
import dev.tideline.sink.TidelineSinkConnector;
import dev.tideline.source.TidelineSourceConnector;
import dev.tideline.standin.MongoFixture;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.strimzi.api.kafka.model.common.metrics.JmxPrometheusExporterMetrics;
import io.strimzi.api.kafka.model.connect.KafkaConnect;
import io.strimzi.api.kafka.model.connect.build.Artifact;
import io.strimzi.api.kafka.model.connect.build.Plugin;
import io.strimzi.api.kafka.model.connect.build.ZipArtifact;
import io.strimzi.api.kafka.model.connector.KafkaConnector;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/strimzi read with Strimzi's own model (io.strimzi:api) and fabric8's: nothing the model does not know
 * (a typo lands in "additionalProperties", which must stay empty), the connectors belong to the KafkaConnect,
 * every config provider placeholder names a declared provider and a Secret the worker may read or a mounted file,
 * and each connector's config, placeholders replaced with test values, passes our connector's own validate()
 * (which also reaches the server: a MongoDB stand-in here).
 */
class StrimziResourcesTest {
    private static final Path DIR = Path.of("deploy", "strimzi");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(\\w+):([^}]*)}");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final List<HasMetadata> RESOURCES = new ArrayList<>();

    @BeforeAll
    static void read() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (JsonNode doc : YAML.readerFor(JsonNode.class).<JsonNode>readValues(f.toFile()).readAll()) {
                    Class<? extends HasMetadata> type = switch (doc.path("kind").asText()) {
                        case "KafkaConnect" -> KafkaConnect.class;
                        case "KafkaConnector" -> KafkaConnector.class;
                        case "Role" -> Role.class;
                        case "RoleBinding" -> RoleBinding.class;
                        default -> throw new AssertionError(f + ": a kind this test does not know: " + doc.path("kind"));
                    };
                    HasMetadata resource = YAML.treeToValue(doc, type);
                    List<String> unknown = new ArrayList<>();
                    unknownProperties(resource, resource.getKind() + " " + resource.getMetadata().getName(), unknown, 0);
                    assertThat(unknown).as(f + ": properties the model does not know (typos?)").isEmpty();
                    RESOURCES.add(resource);
                }
            }
        }
    }

    @Test
    void theKafkaConnectBuildsOurZipWithItsChecksumAndServesOurMetrics() {
        KafkaConnect connect = the(KafkaConnect.class).get(0);
        assertThat(connect.getMetadata().getAnnotations()).containsEntry("strimzi.io/use-connector-resources", "true");
        Plugin plugin = connect.getSpec().getBuild().getPlugins().get(0);
        assertThat(plugin.getName()).isEqualTo("tideline-mongodb");
        Artifact artifact = plugin.getArtifacts().get(0);
        assertThat(artifact).isInstanceOf(ZipArtifact.class);
        ZipArtifact zip = (ZipArtifact) artifact;
        assertThat(zip.getUrl()).matches("https://.*/tideline-mongodb-[0-9.]+\\.zip");
        // substituted at deploy time with the checksum of the zip the user hosts (docs/deploy.md)
        assertThat(zip.getSha512sum()).isEqualTo("${TIDELINE_ZIP_SHA512}");
        assertThat(connect.getSpec().getMetricsConfig()).isInstanceOf(JmxPrometheusExporterMetrics.class);
        JmxPrometheusExporterMetrics metrics = (JmxPrometheusExporterMetrics) connect.getSpec().getMetricsConfig();
        assertThat(metrics.getValueFrom().getConfigMapKeyRef().getKey()).isEqualTo(MetricsCatalog.RULES.getFileName().toString());
        assertThat(providers(connect)).containsEntry("secrets", "io.strimzi.kafka.KubernetesSecretConfigProvider")
                .containsEntry("file", "org.apache.kafka.common.config.provider.FileConfigProvider");
    }

    @Test
    void everyPlaceholderNamesADeclaredProviderAndASecretTheWorkerMayRead() {
        KafkaConnect connect = the(KafkaConnect.class).get(0);
        Map<String, String> providers = providers(connect);
        String namespace = the(Role.class).get(0).getMetadata().getNamespace();
        List<String> readable = the(Role.class).stream().flatMap(r -> r.getRules().stream())
                .filter(rule -> rule.getResources().contains("secrets") && rule.getVerbs().contains("get"))
                .map(PolicyRule::getResourceNames).flatMap(List::stream).toList();
        RoleBinding binding = the(RoleBinding.class).get(0);
        assertThat(binding.getSubjects().get(0).getName()).as("Strimzi's service account of the Connect pods")
                .isEqualTo(connect.getMetadata().getName() + "-connect");
        List<String> mounts = connect.getSpec().getTemplate().getConnectContainer().getVolumeMounts().stream()
                .map(VolumeMount::getMountPath).toList();
        int placeholders = 0;
        for (KafkaConnector c : the(KafkaConnector.class)) {
            assertThat(c.getMetadata().getLabels()).as(c.getMetadata().getName())
                    .containsEntry("strimzi.io/cluster", connect.getMetadata().getName());
            for (Map.Entry<String, Object> e : c.getSpec().getConfig().entrySet()) {
                Matcher m = PLACEHOLDER.matcher(String.valueOf(e.getValue()));
                while (m.find()) {
                    placeholders++;
                    String where = c.getMetadata().getName() + " " + e.getKey();
                    assertThat(providers).as(where + ": provider").containsKey(m.group(1));
                    String path = m.group(2).substring(0, m.group(2).lastIndexOf(':'));
                    if (m.group(1).equals("secrets")) {
                        assertThat(path).as(where).isEqualTo(namespace + "/" + path.substring(path.indexOf('/') + 1));
                        assertThat(readable).as(where + ": a Secret the Role lets the worker read").contains(path.substring(path.indexOf('/') + 1));
                    } else {
                        assertThat(mounts).as(where + ": a file under a mounted volume").anyMatch(path::startsWith);
                    }
                }
            }
        }
        assertThat(placeholders).isGreaterThanOrEqualTo(6);
    }

    @Test
    void everyConnectorConfigPassesItsConnectorsValidate() {
        List<KafkaConnector> connectors = the(KafkaConnector.class);
        assertThat(connectors.stream().map(c -> c.getSpec().getClassName())).contains(
                TidelineSourceConnector.class.getName(), TidelineSinkConnector.class.getName());
        assertThat(connectors.stream().filter(c -> c.getSpec().getConfig().containsKey("peer.cluster.id"))).hasSize(2);
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            for (KafkaConnector c : connectors) {
                Map<String, String> config = new LinkedHashMap<>();
                config.put("name", c.getMetadata().getName());
                config.put("connector.class", c.getSpec().getClassName());
                config.put("tasks.max", String.valueOf(c.getSpec().getTasksMax()));
                c.getSpec().getConfig().forEach((k, v) -> config.put(k, PLACEHOLDER.matcher(String.valueOf(v)).replaceAll(
                        Matcher.quoteReplacement(k.startsWith("peer.stamp.key") ? ConfigExamples.PEER_STAMP_KEY : mongo.uri()))));
                Connector connector = c.getSpec().getClassName().equals(TidelineSourceConnector.class.getName())
                        ? new TidelineSourceConnector() : new TidelineSinkConnector();
                Config result = connector.validate(config);
                List<String> errors = new ArrayList<>();
                for (ConfigValue v : result.configValues()) {
                    v.errorMessages().forEach(msg -> errors.add(v.name() + ": " + msg));
                }
                System.out.printf("%s (%s): %d keys, validate() errors %s%n", c.getMetadata().getName(),
                        connector.getClass().getSimpleName(), config.size(), errors);
                assertThat(errors).as(c.getMetadata().getName()).isEmpty();
            }
        }
    }

    private static Map<String, String> providers(KafkaConnect connect) {
        Map<String, Object> config = connect.getSpec().getConfig();
        Map<String, String> providers = new LinkedHashMap<>();
        for (String name : String.valueOf(config.get("config.providers")).split(",")) {
            providers.put(name.trim(), String.valueOf(config.get("config.providers." + name.trim() + ".class")));
        }
        return providers;
    }

    private static <T> List<T> the(Class<T> type) {
        List<T> found = RESOURCES.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as(type.getSimpleName() + " in " + DIR).isNotEmpty();
        return found;
    }

    /** Walks the model objects (Strimzi's and fabric8's): what a model keeps as "additionalProperties" it did not know. */
    private static void unknownProperties(Object o, String path, List<String> out, int depth) {
        if (o == null || depth > 12) {
            return;
        }
        if (o instanceof Collection<?> list) {
            int i = 0;
            for (Object e : list) {
                unknownProperties(e, path + "[" + i++ + "]", out, depth + 1);
            }
            return;
        }
        String pkg = o.getClass().getPackageName();
        if (!pkg.startsWith("io.strimzi.") && !pkg.startsWith("io.fabric8.")) {
            return;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || !m.getName().startsWith("get") || m.getName().equals("getClass")
                    || m.getDeclaringClass().getPackageName().startsWith("java.")) {
                continue;
            }
            Object value;
            try {
                value = m.invoke(o);
            } catch (ReflectiveOperationException | RuntimeException e) {
                continue; // a derived getter that needs more than the resource holds
            }
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> map && !map.isEmpty()) {
                    out.add(path + ": " + map.keySet());
                }
            } else if (!(value instanceof Map<?, ?>)) {
                unknownProperties(value, path + "." + m.getName().substring(3), out, depth + 1);
            }
        }
    }
}
