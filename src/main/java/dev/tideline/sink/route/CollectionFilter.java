package dev.tideline.sink.route;

import dev.tideline.event.Namespace;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which source collections a destination takes: {@code collection.include} / {@code collection.exclude}
 * (seed 001's per-destination {@code collections} list, with regexes). Several sink connectors read
 * the same topics and each applies only its own collections.
 */
public final class CollectionFilter {
    private final List<Pattern> include;
    private final List<Pattern> exclude;

    private CollectionFilter(List<Pattern> include, List<Pattern> exclude) {
        this.include = include;
        this.exclude = exclude;
    }

    public static CollectionFilter of(List<String> include, List<String> exclude) {
        return new CollectionFilter(compile(include), compile(exclude));
    }

    public static CollectionFilter all() {
        return new CollectionFilter(List.of(), List.of());
    }

    public boolean accepts(Namespace ns) {
        String name = ns.fullName();
        if (!include.isEmpty() && include.stream().noneMatch(p -> p.matcher(name).matches())) {
            return false;
        }
        return exclude.stream().noneMatch(p -> p.matcher(name).matches());
    }

    private static List<Pattern> compile(List<String> regexes) {
        return regexes.stream().map(String::trim).filter(s -> !s.isEmpty()).map(Pattern::compile).toList();
    }
}
