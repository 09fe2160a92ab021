package dev.tideline.source.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * How many partitions a change topic has, for the copy markers that must reach every one of them
 * ({@code resnapshot.begin}/{@code complete}: a partition without the marker is never swept). Pure.
 *
 * <p>Where Connect creates the topics ({@code topic.creation.default.partitions}, KIP-158), the count
 * is derived from the same rules Connect applies: the groups of {@code topic.creation.groups} in order,
 * the first whose {@code include} matches the topic and whose {@code exclude} does not, else the
 * default group; a group without {@code partitions} takes the default's. So the markers cannot
 * disagree with a topic Connect created. Elsewhere (topics made beforehand, or by the broker's
 * {@code num.partitions}: {@code -1}) the source cannot see the count and
 * {@code resnapshot.marker.partitions} says it (default 1).
 *
 * <p>{@link #problem()} refuses what could disagree silently: a {@code resnapshot.marker.partitions}
 * that differs from {@code topic.creation.default.partitions}, and a {@code -1} count without
 * {@code resnapshot.marker.partitions}.
 */
public final class MarkerPartitions {
    static final String CREATION = "topic.creation.";
    static final String GROUPS = "topic.creation.groups";
    static final String DEFAULT_PARTITIONS = "topic.creation.default.partitions";

    private record Group(String name, List<Pattern> include, List<Pattern> exclude, int partitions) {
        boolean matches(String topic) {
            return include.stream().anyMatch(p -> p.matcher(topic).matches()) && exclude.stream().noneMatch(p -> p.matcher(topic).matches());
        }
    }

    private final Integer explicit;
    private final Integer defaultPartitions;
    private final List<Group> groups;
    private final String problem;

    private MarkerPartitions(Integer explicit, Integer defaultPartitions, List<Group> groups, String problem) {
        this.explicit = explicit;
        this.defaultPartitions = defaultPartitions;
        this.groups = groups;
        this.problem = problem;
    }

    /**
     * @param explicit  {@code resnapshot.marker.partitions}, or null when not set
     * @param originals the connector's configuration as given (Connect's {@code topic.creation.*} keys among them)
     */
    public static MarkerPartitions of(Integer explicit, Map<String, ?> originals) {
        Object rawDefault = originals.get(DEFAULT_PARTITIONS);
        if (rawDefault == null || rawDefault.toString().isBlank()) {
            return new MarkerPartitions(explicit, null, List.of(), null);
        }
        List<String> problems = new ArrayList<>();
        Integer def = number(DEFAULT_PARTITIONS, rawDefault, problems);
        List<Group> groups = new ArrayList<>();
        Object groupList = originals.get(GROUPS);
        if (groupList != null) {
            for (String name : items(groupList)) {
                String g = name.trim();
                if (g.isEmpty()) {
                    continue;
                }
                Object p = originals.get(CREATION + g + ".partitions");
                Integer partitions = p == null || p.toString().isBlank() ? def : number(CREATION + g + ".partitions", p, problems);
                groups.add(new Group(g, patterns(originals.get(CREATION + g + ".include"), problems),
                        patterns(originals.get(CREATION + g + ".exclude"), problems), partitions == null ? -1 : partitions));
            }
        }
        if (def != null && def > 0 && explicit != null && !explicit.equals(def)) {
            problems.add(CaptureSettings.RESNAPSHOT_MARKER_PARTITIONS + "=" + explicit + " disagrees with " + DEFAULT_PARTITIONS + "="
                    + def + ": the copy markers would miss partitions of the change topics Connect creates. Remove "
                    + CaptureSettings.RESNAPSHOT_MARKER_PARTITIONS + " (the source then takes each topic's count from topic.creation.*)");
        }
        if (def != null && def < 0 && explicit == null) {
            problems.add(DEFAULT_PARTITIONS + "=-1 leaves the change topics' partition count to the broker (num.partitions), which "
                    + "the source cannot see: set " + CaptureSettings.RESNAPSHOT_MARKER_PARTITIONS + " to that count");
        }
        return new MarkerPartitions(explicit, def, List.copyOf(groups), problems.isEmpty() ? null : String.join("; ", problems));
    }

    /** The partitions (0..n-1) of {@code topic} that its copy markers go to. */
    public int forTopic(String topic) {
        if (defaultPartitions != null) {
            int created = defaultPartitions;
            for (Group g : groups) {
                if (g.matches(topic)) {
                    created = g.partitions();
                    break;
                }
            }
            if (created > 0) {
                return created;
            }
        }
        return explicit != null ? explicit : 1;
    }

    /** What makes the markers possibly disagree with the topics, with what to do; empty when nothing. */
    public Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    /** A list setting as Connect reads it: a comma-separated string, or already a list. */
    private static List<String> items(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        return List.of(value.toString().split(","));
    }

    private static Integer number(String key, Object value, List<String> problems) {
        try {
            return Integer.parseInt(value.toString().trim());
        } catch (NumberFormatException e) {
            problems.add(key + " must be a number, got '" + value + "'");
            return null;
        }
    }

    private static List<Pattern> patterns(Object value, List<String> problems) {
        List<Pattern> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        for (String regex : items(value)) {
            if (regex.isBlank()) {
                continue;
            }
            try {
                out.add(Pattern.compile(regex.trim()));
            } catch (PatternSyntaxException e) {
                problems.add("topic.creation pattern '" + regex.trim() + "' is not a regular expression: " + e.getDescription());
            }
        }
        return out;
    }
}
