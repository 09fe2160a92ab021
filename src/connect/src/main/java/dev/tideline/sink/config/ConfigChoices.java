package dev.tideline.sink.config;

import dev.tideline.config.Validators;
import java.util.Arrays;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Enum-valued settings: lower-case names on the wire, a validator and a recommender from the enum. */
final class ConfigChoices {
    private ConfigChoices() {
    }

    static <E extends Enum<E>> String nameOf(E value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    static <E extends Enum<E>> String[] names(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(ConfigChoices::nameOf).toArray(String[]::new);
    }

    static <E extends Enum<E>> ConfigDef.Validator validator(Class<E> type) {
        return Validators.oneOf(names(type));
    }

    static <E extends Enum<E>> ConfigDef.Recommender recommender(Class<E> type) {
        return Validators.oneOf(names(type));
    }

    static <E extends Enum<E>> E parse(Class<E> type, String key, String value) {
        for (E e : type.getEnumConstants()) {
            if (nameOf(e).equalsIgnoreCase(value.trim())) {
                return e;
            }
        }
        throw new ConfigException(key, value, "expected one of " + String.join(", ", names(type)));
    }
}
