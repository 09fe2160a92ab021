package dev.tideline.monitoring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The small part of PromQL the dashboard's queries use, evaluated over recorded scrapes so its panels can be drawn
 * from a real run without a Prometheus server: a selector {@code name{l="v", l!="v", l=~"re"}}, {@code rate(sel[w])},
 * {@code sum by (..) (e)} / {@code max by (..) (e)}, and {@code a / b} on equal label sets. Anything else is refused,
 * so a dashboard query this cannot draw fails the picture instead of drawing something else.
 */
public final class PromQuery {
    /** An instant vector: label set to value. */
    public interface Expr {
        Map<Map<String, String>, Double> at(List<Scrape> scrapes, int index);
    }

    private static final Pattern AGGREGATE = Pattern.compile("^(sum|max) by \\(([^)]*)\\) \\((.*)\\)$");
    private static final Pattern RATE = Pattern.compile("^rate\\((.*)\\[([^\\]]+)]\\)$");
    private static final Pattern SELECTOR = Pattern.compile("^(\\w+)(?:\\{(.*)})?$");
    private static final Pattern MATCHER = Pattern.compile("\\s*(\\w+)\\s*(=~|!=|=)\\s*\"([^\"]*)\"\\s*");

    private final long rateWindowMillis;

    /** @param rateWindowMillis what {@code $__rate_interval} stands for */
    public PromQuery(long rateWindowMillis) {
        this.rateWindowMillis = rateWindowMillis;
    }

    /** Grafana variables: every {@code $connector}-like one is "all" ({@code .*}), the rate interval the window. */
    public Expr parse(String query) {
        return expr(query.replace("$__rate_interval", rateWindowMillis / 1000 + "s").replaceAll("\\$\\w+", ".*").trim());
    }

    private Expr expr(String q) {
        int slash = topLevel(q, '/');
        if (slash >= 0) {
            Expr a = expr(q.substring(0, slash).trim());
            Expr b = expr(q.substring(slash + 1).trim());
            return (scrapes, i) -> {
                Map<Map<String, String>, Double> left = a.at(scrapes, i);
                Map<Map<String, String>, Double> right = b.at(scrapes, i);
                Map<Map<String, String>, Double> out = new LinkedHashMap<>();
                left.forEach((labels, v) -> {
                    Double d = right.get(labels);
                    if (d != null && d != 0) {
                        out.put(labels, v / d);
                    }
                });
                return out;
            };
        }
        Matcher agg = AGGREGATE.matcher(q);
        if (agg.matches()) {
            List<String> by = List.of(agg.group(2).split("\\s*,\\s*"));
            boolean max = agg.group(1).equals("max");
            Expr inner = expr(agg.group(3).trim());
            return (scrapes, i) -> {
                Map<Map<String, String>, Double> out = new LinkedHashMap<>();
                inner.at(scrapes, i).forEach((labels, v) -> {
                    Map<String, String> key = new TreeMap<>();
                    by.forEach(l -> key.put(l, labels.getOrDefault(l, "")));
                    out.merge(key, v, max ? Math::max : Double::sum);
                });
                return out;
            };
        }
        Matcher rate = RATE.matcher(q);
        if (rate.matches()) {
            Expr inner = expr(rate.group(1).trim());
            long window = duration(rate.group(2));
            return (scrapes, i) -> rate(inner, scrapes, i, window);
        }
        Matcher sel = SELECTOR.matcher(q);
        if (sel.matches()) {
            return selector(sel.group(1), sel.group(2) == null ? "" : sel.group(2));
        }
        throw new IllegalArgumentException("not in the PromQL subset drawn here: " + q);
    }

    /** Per-second increase between the first and the last scrape in the window (a counter reset counts from 0). */
    private static Map<Map<String, String>, Double> rate(Expr inner, List<Scrape> scrapes, int i, long window) {
        int first = i;
        while (first > 0 && scrapes.get(i).atMillis() - scrapes.get(first - 1).atMillis() <= window) {
            first--;
        }
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        if (first == i) {
            return out;
        }
        Map<Map<String, String>, Double> start = inner.at(scrapes, first);
        double seconds = (scrapes.get(i).atMillis() - scrapes.get(first).atMillis()) / 1000.0;
        inner.at(scrapes, i).forEach((labels, v) -> {
            Double s = start.get(labels);
            if (s != null) {
                out.put(labels, (v >= s ? v - s : v) / seconds);
            }
        });
        return out;
    }

    private static Expr selector(String name, String matchers) {
        List<String[]> conditions = new ArrayList<>();
        if (!matchers.isBlank()) {
            for (String m : matchers.split(",")) {
                Matcher c = MATCHER.matcher(m);
                if (!c.matches()) {
                    throw new IllegalArgumentException("label matcher not in the subset: " + m);
                }
                conditions.add(new String[] {c.group(1), c.group(2), c.group(3)});
            }
        }
        return (scrapes, i) -> {
            Map<Map<String, String>, Double> out = new LinkedHashMap<>();
            for (Scrape.Sample s : scrapes.get(i).samples()) {
                if (s.name().equals(name) && conditions.stream().allMatch(c -> holds(c, s.label(c[0])))) {
                    out.put(new TreeMap<>(s.labels()), s.value());
                }
            }
            return out;
        };
    }

    private static boolean holds(String[] condition, String value) {
        return switch (condition[1]) {
            case "=" -> value.equals(condition[2]);
            case "!=" -> !value.equals(condition[2]);
            default -> value.matches(condition[2]);
        };
    }

    private static long duration(String d) {
        Matcher m = Pattern.compile("^(\\d+)(ms|s|m)$").matcher(d);
        if (!m.matches()) {
            throw new IllegalArgumentException("duration not in the subset: " + d);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> n;
            case "s" -> n * 1000;
            default -> n * 60_000;
        };
    }

    /** The index of {@code c} outside parentheses, braces and quotes; -1 if none. */
    private static int topLevel(String q, char c) {
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < q.length(); i++) {
            char x = q.charAt(i);
            if (x == '"') {
                quoted = !quoted;
            } else if (!quoted && (x == '(' || x == '{' || x == '[')) {
                depth++;
            } else if (!quoted && (x == ')' || x == '}' || x == ']')) {
                depth--;
            } else if (!quoted && depth == 0 && x == c) {
                return i;
            }
        }
        return -1;
    }
}
