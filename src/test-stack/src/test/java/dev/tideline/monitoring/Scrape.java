package dev.tideline.monitoring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of a Prometheus text exposition: its time and its samples (name, labels, value). */
public record Scrape(long atMillis, List<Scrape.Sample> samples) {
    public record Sample(String name, Map<String, String> labels, double value) {
        public String label(String name) {
            return labels.getOrDefault(name, "");
        }
    }

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    public static Scrape parse(long atMillis, String exposition) {
        List<Sample> samples = new ArrayList<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int close = line.lastIndexOf('}');
            String name = brace >= 0 ? line.substring(0, brace) : line.substring(0, line.indexOf(' '));
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0) {
                Matcher m = LABEL.matcher(line.substring(brace + 1, close));
                while (m.find()) {
                    labels.put(m.group(1), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
                }
            }
            String[] rest = line.substring(brace >= 0 ? close + 1 : name.length()).trim().split("\\s+");
            samples.add(new Sample(name, labels, Double.parseDouble(rest[0])));
        }
        return new Scrape(atMillis, samples);
    }

    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        samples.forEach(s -> names.add(s.name()));
        return names;
    }

    /** The samples of one metric whose labels include all of {@code match}. */
    public List<Sample> find(String name, Map<String, String> match) {
        return samples.stream().filter(s -> s.name().equals(name)
                && match.entrySet().stream().allMatch(e -> e.getValue().equals(s.labels().get(e.getKey())))).toList();
    }

    /** The value of the one sample of {@code name} with {@code match}; NaN when there is none. */
    public double value(String name, Map<String, String> match) {
        List<Sample> found = find(name, match);
        if (found.size() > 1) {
            throw new IllegalStateException(found.size() + " samples of " + name + " match " + match + ": " + found);
        }
        return found.isEmpty() ? Double.NaN : found.get(0).value();
    }
}
