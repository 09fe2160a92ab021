package dev.tideline.sink.config;

import dev.tideline.sink.check.DestinationPolicy;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Database names in the settings must be names MongoDB accepts, and never one the sink refuses to write
 * (admin, config, local): caught here, a typo or a bad idea is one config error instead of every record
 * failing at write time. Validates a string ({@code database}, empty means "the source database") or a
 * list ({@code database.allow}). Rules: {@link DestinationPolicy#databaseProblem}.
 */
final class DatabaseNameValidator implements ConfigDef.Validator {
    private final String emptyMeans;

    /** As the sink's {@code database} setting reads an empty value. */
    DatabaseNameValidator() {
        this("the source database");
    }

    /** @param emptyMeans how the docs describe an empty value */
    DatabaseNameValidator(String emptyMeans) {
        this.emptyMeans = emptyMeans;
    }

    @Override
    public void ensureValid(String name, Object value) {
        if (value instanceof List<?> list) {
            for (Object o : list) {
                check(name, value, String.valueOf(o).trim());
            }
        } else {
            check(name, value, value == null ? "" : ((String) value).trim());
        }
    }

    private static void check(String name, Object value, String db) {
        if (!db.isEmpty()) {
            DestinationPolicy.databaseProblem(db).ifPresent(p -> {
                throw new ConfigException(name, value, p);
            });
        }
    }

    @Override
    public String toString() {
        return "MongoDB database names other than admin, config and local; empty: " + emptyMeans;
    }
}
