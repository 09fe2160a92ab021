package dev.tideline.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The Markdown tables of a ConfigDef's settings, one per group (key, type, default, valid values, importance,
 * description), as docs/config-reference.md and docs/verify.md show them: the one renderer of both pages, which are
 * generated ({@code ./docs/generate}) and checked by tests.
 */
public final class ConfigTable {
    /** the group of keys defined without one */
    public static final String OTHER = "Other";

    private ConfigTable() {
    }

    /** The def's groups in their order, then {@link #OTHER} when a key has none. */
    public static List<String> groupsOf(ConfigDef def) {
        List<String> groups = new ArrayList<>(def.groups());
        if (def.configKeys().values().stream().anyMatch(k -> k.group == null) && !groups.contains(OTHER)) {
            groups.add(OTHER);
        }
        return groups;
    }

    /**
     * Appends a table per group, each under a heading of that group's name.
     *
     * @param heading the heading's Markdown prefix, e.g. {@code "### "}
     */
    public static void append(StringBuilder md, ConfigDef def, List<String> groups, String heading) {
        for (String group : groups) {
            md.append(heading).append(group).append("\n\n");
            md.append("| Key | Type | Default | Valid values | Importance | Description |\n");
            md.append("|---|---|---|---|---|---|\n");
            def.configKeys().values().stream()
                    .filter(k -> group.equals(k.group == null ? OTHER : k.group))
                    .sorted((a, b) -> Integer.compare(a.orderInGroup, b.orderInGroup))
                    .forEach(k -> md.append("| `").append(k.name).append("` | ").append(k.type.name().toLowerCase(Locale.ROOT))
                            .append(" | ").append(defaultOf(k)).append(" | ").append(cell(k.validator == null ? "" : k.validator.toString()))
                            .append(" | ").append(k.importance.name().toLowerCase(Locale.ROOT))
                            .append(" | ").append(cell(k.documentation)).append(" |\n"));
            md.append("\n");
        }
    }

    private static String defaultOf(ConfigDef.ConfigKey k) {
        if (!k.hasDefault()) {
            return "(required)";
        }
        if (k.type == ConfigDef.Type.PASSWORD) {
            return "(hidden)";
        }
        Object v = k.defaultValue;
        String s = v instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList()) : String.valueOf(v);
        return s.isEmpty() ? "\"\"" : "`" + s + "`";
    }

    private static String cell(String text) {
        return text == null ? "" : text.replace("|", "\\|").replace("\n", " ");
    }
}
