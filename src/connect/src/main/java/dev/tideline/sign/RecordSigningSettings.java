package dev.tideline.sign;

import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;

/**
 * Signed change records ({@link RecordSignature}, docs/sink-safety.md), opt-in, the same two settings on the source
 * (which signs) and the sink (which refuses what is not signed with them).
 */
public final class RecordSigningSettings {
    public static final String GROUP = "Record signing";
    public static final String KEY = "record.signing.key";
    public static final String PREVIOUS_KEY = "record.signing.key.previous";
    /** Connect's per-connector key for the header converter */
    public static final String HEADER_CONVERTER = "header.converter";
    /** a header converter that hands header text over as it was written */
    public static final String TEXT_HEADER_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";
    private static final java.util.Set<String> TEXT_HEADER_CONVERTERS = java.util.Set.of(TEXT_HEADER_CONVERTER,
            "org.apache.kafka.connect.converters.ByteArrayConverter");
    private static final String KEEP_PREVIOUS = "until no record signed with it remains to be read (the topics' retention, "
            + "or the sinks' committed offsets; see docs/sink-safety.md)";
    private static final KeySettings SETTINGS = new KeySettings(KEY, PREVIOUS_KEY, RecordSignature.KEY_ID_LABEL);

    private RecordSigningSettings() {
    }

    public static void defineForSource(ConfigDef def) {
        SETTINGS.define(def, GROUP, 0, Importance.MEDIUM,
                "Secret with which the source signs every record it emits (changes, Kafka tombstones, resnapshot markers, "
                        + "heartbeats, control records): a " + RecordSignature.HEADER + " header with an HMAC over the topic, "
                        + "the record key and value and its tl.* headers. Sinks configured with the same key refuse "
                        + "records without a valid signature. Empty (default): records are not signed. "
                        + "See docs/sink-safety.md.",
                "records", KEEP_PREVIOUS, "Record signing key");
    }

    public static void defineForSink(ConfigDef def) {
        SETTINGS.define(def, GROUP, 0, Importance.MEDIUM,
                "Secret of the sources whose records this sink applies (their record.signing.key): when set, a record "
                        + "without a " + RecordSignature.HEADER + " header, or whose signature does not match its topic, "
                        + "key, value and tl.* headers, goes to the dead letter queue with the reason, before it is "
                        + "decoded; in peer mode too. Requires " + HEADER_CONVERTER + "=" + TEXT_HEADER_CONVERTER + " on the "
                        + "connector (the default header converter parses header text). Empty (default): records are not "
                        + "checked. See docs/sink-safety.md.",
                "records", KEEP_PREVIOUS, "Record signing key");
    }

    /**
     * What validate() reports on the sink beyond the per-key checks: a sink that verifies must read headers as text;
     * null when fine.
     *
     * @param props the raw connector settings
     */
    public static String headerConverterProblem(java.util.Map<String, String> props) {
        if (!SETTINGS.isSet(props)) {
            return null;
        }
        String converter = props.getOrDefault(HEADER_CONVERTER, "").trim();
        return TEXT_HEADER_CONVERTERS.contains(converter) ? null : KEY + " is set: set " + HEADER_CONVERTER + "="
                + TEXT_HEADER_CONVERTER + " on this connector" + (converter.isEmpty() ? "" : " (not " + converter + ")")
                + ", so that the headers a signature covers arrive as the text that was signed (the default header "
                + "converter reads '007' as the number 7)";
    }

    /** The signature to make or check; empty when {@link #KEY} is not set. */
    public static Optional<RecordSignature> signature(AbstractConfig c) {
        return Optional.ofNullable(SETTINGS.ring(c)).map(RecordSignature::new);
    }
}
