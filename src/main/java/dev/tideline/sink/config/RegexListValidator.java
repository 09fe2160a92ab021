package dev.tideline.sink.config;

import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A LIST setting whose entries must each be a Java regular expression. */
final class RegexListValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
        if (value == null) {
            return;
        }
        for (Object entry : (List<?>) value) {
            try {
                Pattern.compile(String.valueOf(entry));
            } catch (PatternSyntaxException e) {
                throw new ConfigException(name, entry, "not a valid regular expression (" + e.getDescription()
                        + " at index " + e.getIndex() + "): fix or quote it, e.g. escape dots as \\\\.");
            }
        }
    }

    @Override
    public String toString() {
        return "a comma-separated list of Java regular expressions";
    }
}
