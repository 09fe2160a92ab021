package dev.tideline.config;

import java.util.Arrays;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigException;

/**
 * Enum-valued settings, parsed one way: each constant's name on the wire is its lower camel case ({@code UPSERT} →
 * {@code upsert}, {@code CHANGE_STREAM} → {@code changeStream}), matched ignoring case and surrounding blanks; the
 * validator and recommender list those names in the enum's order.
 */
public final class ConfigChoices {
    private ConfigChoices() {
    }

    public static <E extends Enum<E>> String nameOf(E value) {
        String[] words = value.name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder name = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) {
            name.append(Character.toUpperCase(words[i].charAt(0))).append(words[i], 1, words[i].length());
        }
        return name.toString();
    }

    public static <E extends Enum<E>> String[] names(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(ConfigChoices::nameOf).toArray(String[]::new);
    }

    /** A validator that is also the recommender of the setting. */
    public static <E extends Enum<E>> Validators.EnumValidator validator(Class<E> type) {
        return Validators.oneOf(names(type));
    }

    public static <E extends Enum<E>> Validators.EnumValidator recommender(Class<E> type) {
        return validator(type);
    }

    /** @throws ConfigException naming the key and the names it takes, when {@code value} is none of them */
    public static <E extends Enum<E>> E parse(Class<E> type, String key, String value) {
        for (E e : type.getEnumConstants()) {
            if (nameOf(e).equalsIgnoreCase(value.trim())) {
                return e;
            }
        }
        throw new ConfigException(key, value, "expected one of " + String.join(", ", names(type)));
    }
}
