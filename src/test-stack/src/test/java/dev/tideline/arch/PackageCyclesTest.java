package dev.tideline.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The main code of every module is free of package cycles, the plugin ({@code src/connect}) names nothing of the
 * gateway or the stand-in, and the sink and the peer sink meet only at the sink front end. Read from the sources
 * ({@link SourceImports}): the imports and fully qualified names of each file.
 */
class PackageCyclesTest {
    private static final String SINK = "dev.tideline.sink";
    private static final String PEER_SINK = "dev.tideline.peer.sink";
    /**
     * What the peer sink may use of the sink: the front end, and the types its interface takes and hands out (the
     * sink's configuration with its peer part, a decoded change, where it lands, a failure to report).
     */
    private static final Set<String> SINK_FRONT_END_INTERFACE = Set.of(
            "dev.tideline.sink.front.*",
            "dev.tideline.sink.config.SinkConfig",
            "dev.tideline.sink.config.PeerSinkSettings",
            "dev.tideline.sink.decode.SinkChange",
            "dev.tideline.sink.route.RoutedChange",
            "dev.tideline.sink.write.RecordFailure");

    private static final List<SourceImports> SOURCES = SourceImports.readAll(Path.of(""));

    @Test
    void noPackageCycle() {
        PackageGraph graph = PackageGraph.of(SOURCES);
        List<String> cycles = new ArrayList<>();
        for (Set<String> cycle : graph.cycles()) {
            cycles.add(graph.describe(cycle));
        }
        assertThat(cycles).as("package cycles (each: the packages, then the imports that close it)").isEmpty();
    }

    @Test
    void thePluginNamesNothingOfTheGatewayOrTheStandIn() {
        Map<String, Set<String>> moduleOf = new HashMap<>();
        SOURCES.forEach(s -> moduleOf.computeIfAbsent(s.pkg(), k -> new TreeSet<>()).add(s.module()));
        List<String> found = new ArrayList<>();
        for (SourceImports s : SOURCES) {
            if (!s.module().equals("connect")) {
                continue;
            }
            for (String target : s.packages()) {
                Set<String> modules = moduleOf.getOrDefault(target, Set.of());
                if (modules.contains("gateway") || modules.contains("standin")) {
                    found.add(s.pkg() + "." + s.className() + " -> " + target + " " + modules);
                }
            }
        }
        assertThat(moduleOf.get("dev.tideline.fanout")).as("the gateway's sources are found").contains("gateway");
        assertThat(moduleOf.get("dev.tideline.standin")).as("the stand-in's sources are found").contains("standin");
        assertThat(found).as("src/connect naming the gateway or the stand-in").isEmpty();
    }

    @Test
    void theSinkAndThePeerSinkMeetOnlyAtTheFrontEnd() {
        List<String> found = new ArrayList<>();
        for (SourceImports s : SOURCES) {
            String from = s.pkg() + "." + s.className();
            if (within(s.pkg(), SINK)) {
                s.packages().stream().filter(p -> within(p, PEER_SINK)).forEach(p -> found.add(from + " -> " + p));
            }
            if (within(s.pkg(), PEER_SINK)) {
                s.classes().stream().filter(c -> within(packageOf(c), SINK))
                        .filter(c -> !SINK_FRONT_END_INTERFACE.contains(c)
                                && !SINK_FRONT_END_INTERFACE.contains(packageOf(c) + ".*"))
                        .forEach(c -> found.add(from + " -> " + c));
                s.packages().stream().filter(p -> within(p, SINK) && !SINK_FRONT_END_INTERFACE.contains(p + ".*"))
                        .filter(p -> s.classes().stream().noneMatch(c -> packageOf(c).equals(p)))
                        .forEach(p -> found.add(from + " -> " + p + ".*"));
            }
        }
        assertThat(found).as("imports between the sink and the peer sink that bypass the front end").isEmpty();
    }

    @Test
    void theCheckFindsACycleAndNamesTheImportsClosingIt() {
        List<SourceImports> made = List.of(
                SourceImports.of("m", "A", "package dev.tideline.a;\nimport dev.tideline.b.B;\n// dev.tideline.c.C\n"
                        + "class A { String s = \"dev.tideline.c.C\"; }"),
                SourceImports.of("m", "B", "package dev.tideline.b;\nclass B { dev.tideline.a.A a; }"),
                SourceImports.of("m", "C", "package dev.tideline.c;\nimport dev.tideline.a.*;\nclass C {}"));
        PackageGraph graph = PackageGraph.of(made);
        assertThat(graph.cycles()).containsExactly(Set.of("dev.tideline.a", "dev.tideline.b"));
        assertThat(graph.describe(Set.of("dev.tideline.a", "dev.tideline.b")))
                .contains("dev.tideline.a.A -> dev.tideline.b").contains("dev.tideline.b.B -> dev.tideline.a");
    }

    private static boolean within(String pkg, String root) {
        return pkg.equals(root) || pkg.startsWith(root + ".");
    }

    private static String packageOf(String className) {
        return className.substring(0, className.lastIndexOf('.'));
    }

    /** Packages and the packages they name; its cycles are its strongly connected sets of two or more. */
    record PackageGraph(Map<String, Map<String, Set<String>>> edges) {
        static PackageGraph of(List<SourceImports> sources) {
            Map<String, Map<String, Set<String>>> edges = new TreeMap<>();
            for (SourceImports s : sources) {
                Map<String, Set<String>> out = edges.computeIfAbsent(s.pkg(), k -> new TreeMap<>());
                for (String target : s.packages()) {
                    out.computeIfAbsent(target, k -> new TreeSet<>()).add(s.pkg() + "." + s.className());
                    edges.computeIfAbsent(target, k -> new TreeMap<>());
                }
            }
            return new PackageGraph(edges);
        }

        /** Tarjan's strongly connected components. */
        List<Set<String>> cycles() {
            Map<String, Integer> index = new HashMap<>();
            Map<String, Integer> low = new HashMap<>();
            List<String> stack = new ArrayList<>();
            List<Set<String>> found = new ArrayList<>();
            for (String v : edges.keySet()) {
                if (!index.containsKey(v)) {
                    connect(v, index, low, stack, found);
                }
            }
            return found;
        }

        private void connect(String v, Map<String, Integer> index, Map<String, Integer> low, List<String> stack,
                             List<Set<String>> found) {
            index.put(v, index.size());
            low.put(v, index.get(v));
            stack.add(v);
            for (String w : edges.get(v).keySet()) {
                if (!index.containsKey(w)) {
                    connect(w, index, low, stack, found);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (stack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                Set<String> component = new TreeSet<>();
                String w;
                do {
                    w = stack.remove(stack.size() - 1);
                    component.add(w);
                } while (!w.equals(v));
                if (component.size() > 1) {
                    found.add(component);
                }
            }
        }

        String describe(Set<String> cycle) {
            StringBuilder b = new StringBuilder(cycle.toString());
            for (String from : cycle) {
                edges.get(from).forEach((to, classes) -> {
                    if (cycle.contains(to)) {
                        classes.forEach(c -> b.append("\n  ").append(c).append(" -> ").append(to));
                    }
                });
            }
            return b.toString();
        }
    }
}
