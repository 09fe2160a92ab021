package dev.tideline.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.bson.json.JsonParseException;

/** ConfigDef validators and recommenders shared by the connectors. Messages say what to write instead. */
public final class Validators {
    private Validators() {
    }

    /** A list of Java regular expressions. */
    public static ConfigDef.Validator regexList() {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                if (value == null) {
                    return;
                }
                for (Object o : (List<?>) value) {
                    compile(name, String.valueOf(o));
                }
            }

            @Override
            public String toString() {
                return "comma-separated Java regular expressions";
            }
        };
    }

    /** A JSON object whose values are all documents (e.g. namespace → MongoDB query); empty allowed. */
    public static ConfigDef.Validator jsonObject(String valuesAre) {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                parseJsonObject(name, (String) value);
            }

            @Override
            public String toString() {
                return "a JSON object: " + valuesAre;
            }
        };
    }

    /** One of a fixed set of names, case-insensitive; also serves as the recommender. */
    public static EnumValidator oneOf(String... names) {
        return new EnumValidator(names);
    }

    public static Pattern compile(String key, String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new ConfigException(key, regex, "not a valid regular expression: " + e.getDescription()
                    + " near index " + e.getIndex() + " (escape dots as \\\\. in JSON)");
        }
    }

    /** Parses a JSON object config value; blank means empty. @throws ConfigException naming the key */
    public static BsonDocument parseJsonObject(String key, String json) {
        if (json == null || json.isBlank()) {
            return new BsonDocument();
        }
        try {
            return BsonDocument.parse(json);
        } catch (JsonParseException | org.bson.BsonInvalidOperationException e) {
            throw new ConfigException(key, json, "not a JSON object: " + e.getMessage());
        }
    }

    public static final class EnumValidator implements ConfigDef.Validator, ConfigDef.Recommender {
        private final List<String> names;

        EnumValidator(String... names) {
            this.names = List.of(names);
        }

        @Override
        public void ensureValid(String name, Object value) {
            if (value == null || names.stream().noneMatch(n -> n.equalsIgnoreCase(((String) value).trim()))) {
                throw new ConfigException(name, value, "must be one of " + names);
            }
        }

        /** The canonical spelling of a valid value. */
        public String canonical(String value) {
            for (String n : names) {
                if (n.equalsIgnoreCase(value.trim())) {
                    return n;
                }
            }
            throw new IllegalArgumentException(value);
        }

        @Override
        public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
            return new ArrayList<>(names);
        }

        @Override
        public boolean visible(String name, Map<String, Object> parsedConfig) {
            return true;
        }

        @Override
        public String toString() {
            return String.join(", ", names);
        }
    }

    public static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    public static List<String> list(String... s) {
        return Arrays.asList(s);
    }
}
