package dev.tideline.sign;

import dev.tideline.event.HeaderValues;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.header.Header;

/**
 * Signed change records (docs/sink-safety.md): the source adds a {@value #HEADER} header to each record it emits,
 * {@code keyId:mac}, an HMAC ({@link KeyRing}) over
 * <ol>
 *   <li>the topic (a record replayed onto another topic, mapped to another namespace, no longer verifies),</li>
 *   <li>the record key and the record value ({@link CanonicalValue}: the same whichever converter carried them;
 *       a null value, a Kafka tombstone, included),</li>
 *   <li>every header whose name starts with {@value #COVERED_PREFIX} but the signature itself, sorted by name, as
 *       text: the namespace {@code tl.ns}, the kind, op, tenant, origin, producer and sequence, the markers'
 *       {@code tl.marker}, {@code tl.epoch}, {@code tl.partitions} and scope, peer mode's headers. A header
 *       added, removed or changed breaks the signature. Their exact text: a sink that verifies reads headers with
 *       a header converter that keeps it ({@link RecordSigningSettings#TEXT_HEADER_CONVERTER}).</li>
 * </ol>
 * Not covered: the partition, the timestamp, and headers of other names (Connect's DLQ context). A signature
 * proves who made a record, not when: a signed record sent again is the same change again (the stale guard
 * refuses an older version).
 */
public final class RecordSignature {
    public static final String HEADER = "tl.sig";
    static final String COVERED_PREFIX = "tl.";
    static final String KEY_ID_LABEL = "tideline-record-key-id";
    private static final String DOMAIN = "tl-record-v1";
    /** a header's null value and its text never give the same bytes */
    private static final String NULL_VALUE = "";
    private static final String VALUE_PREFIX = "=";

    private final KeyRing keys;

    public RecordSignature(KeyRing keys) {
        this.keys = keys;
    }

    /** Adds the signature header (the source's side). */
    public void sign(ConnectRecord<?> record) {
        record.headers().addString(HEADER, keys.sign(input(record)).text());
    }

    /**
     * Why the record is not signed with one of the keys (the sink's side); empty when it is.
     *
     * @throws dev.tideline.event.RefusedRecordException for a key or value nested too deep to cover
     */
    public Optional<String> problem(ConnectRecord<?> record) {
        Header h = record.headers().lastWithName(HEADER);
        String text = h == null || h.value() == null ? null : HeaderValues.text(h.value());
        if (text == null) {
            return Optional.of("refused: the record has no " + HEADER + " header, and this sink accepts only records signed "
                    + "with its record.signing.key (an unsigned record was not made by a source of this deployment)");
        }
        Mac128 mac = Mac128.parse(text);
        if (mac == null || !keys.knows(mac.keyId())) {
            return Optional.of("refused: its " + HEADER + " header names no key of this sink (this sink verifies key "
                    + keys.keyId() + " and record.signing.key.previous): signed with another key, or forged");
        }
        Optional<String> parsed = parsedHeader(record);
        if (parsed.isPresent()) {
            return parsed;
        }
        if (!keys.verify(mac, input(record))) {
            return Optional.of("refused: its " + HEADER + " signature (key " + mac.keyId() + ") does not match the record: its "
                    + "topic, key, value or tl.* headers differ from what the source signed (changed, or replayed onto "
                    + "another topic)");
        }
        return Optional.empty();
    }

    /**
     * A covered header the worker's header converter handed over as something else than its text: Kafka's default
     * (SimpleHeaderConverter) reads "007" as the number 7 and a scope as a map, and the text signed cannot be told
     * from such values.
     */
    private static Optional<String> parsedHeader(ConnectRecord<?> record) {
        for (Header h : record.headers()) {
            if (covered(h) && h.value() != null && !(h.value() instanceof String) && !(h.value() instanceof byte[])) {
                return Optional.of("refused: its header " + h.key() + " arrived as a " + h.value().getClass().getSimpleName()
                        + ", not as the text that was signed: set " + RecordSigningSettings.HEADER_CONVERTER + "="
                        + RecordSigningSettings.TEXT_HEADER_CONVERTER + " on this connector (the default header converter "
                        + "parses header text into numbers and maps)");
            }
        }
        return Optional.empty();
    }

    private static boolean covered(Header h) {
        return h.key().startsWith(COVERED_PREFIX) && !h.key().equals(HEADER);
    }

    private static KeyRing.Input input(ConnectRecord<?> record) {
        byte[] key = CanonicalValue.of(record.key());
        byte[] value = CanonicalValue.of(record.value());
        List<String[]> covered = new ArrayList<>();
        for (Header h : record.headers()) {
            if (covered(h)) {
                covered.add(new String[] {h.key(), h.value() == null ? NULL_VALUE : VALUE_PREFIX + HeaderValues.text(h.value())});
            }
        }
        covered.sort(Comparator.comparing(x -> x[0])); // stable: repeated names keep their order
        return f -> {
            f.text(DOMAIN).text(record.topic()).bytes(key).bytes(value).text(Integer.toString(covered.size()));
            covered.forEach(x -> f.text(x[0]).text(x[1]));
        };
    }
}
