package dev.tideline.mongo;

import dev.tideline.config.Validators;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Include / exclude lists of regular expressions, each matched against the WHOLE name: a name passes
 * when the include list is empty or one entry matches, and no exclude entry matches. Used for the
 * source's database and collection selection and for each sink destination's collection list
 * (seed 001's per-destination collections, with regexes).
 */
public final class NameFilter {
    private final List<Pattern> include;
    private final List<Pattern> exclude;

    private NameFilter(List<Pattern> include, List<Pattern> exclude) {
        this.include = include;
        this.exclude = exclude;
    }

    /** @param key the config key of the lists, named when an entry is not a regular expression */
    public static NameFilter of(String key, List<String> include, List<String> exclude) {
        return new NameFilter(compile(key, include), compile(key, exclude));
    }

    public static NameFilter all() {
        return new NameFilter(List.of(), List.of());
    }

    public boolean accepts(String name) {
        if (!include.isEmpty() && include.stream().noneMatch(p -> p.matcher(name).matches())) {
            return false;
        }
        return exclude.stream().noneMatch(p -> p.matcher(name).matches());
    }

    private static List<Pattern> compile(String key, List<String> regexes) {
        return regexes.stream().map(String::trim).filter(s -> !s.isEmpty()).map(r -> Validators.compile(key, r)).toList();
    }
}
