package dev.tideline.it.support;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Op;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * What a change topic (bson form) says about document versions, for repair tests: the changes written
 * after a point, and whether any document's version went back on the topic within one task run.
 */
public final class TopicVersions {
    /** A change read from the topic, with the task run that wrote it. */
    public record Written(ChangeEvent event, String producer) {
    }

    /** What {@link #check} found. */
    public record Order(int copies, int changes, int inversions, Set<BsonValue> copied) {
    }

    private TopicVersions() {
    }

    /** The topic's end offsets now, per partition. */
    public static Map<Integer, Long> ends(String bootstrap, String topic) {
        Map<Integer, Long> ends = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readToEnd(bootstrap, topic, Duration.ofSeconds(30))) {
            ends.merge(r.partition(), r.offset() + 1, Math::max);
        }
        return ends;
    }

    /** The changes written to the topic after {@code ends}, in topic order per partition. */
    public static List<Written> after(String bootstrap, String topic, Map<Integer, Long> ends) {
        List<Written> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readToEnd(bootstrap, topic, Duration.ofSeconds(30))) {
            String kind = header(r, EventHeaders.KIND);
            if (r.offset() >= ends.getOrDefault(r.partition(), 0L) && r.value() != null && EventHeaders.KIND_CHANGE.equals(kind)) {
                out.add(new Written(EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(r.value())), header(r, EventHeaders.PRODUCER)));
            }
        }
        return out;
    }

    /**
     * Per document and task run, versions (cluster times; a copy carries its own) never go back and no
     * copy follows a delete. Across runs a restart replays from the committed position, which repeats
     * older versions by design (at least once), so each run is checked on its own.
     */
    public static Order check(List<Written> written) {
        Map<String, BsonTimestamp> last = new HashMap<>();
        Set<String> gone = new HashSet<>();
        Set<BsonValue> copied = new HashSet<>();
        int copies = 0;
        int inversions = 0;
        for (Written w : written) {
            ChangeEvent e = w.event();
            if (e.clusterTime() == null) {
                throw new AssertionError("a change without a version (cluster time) on the topic: " + e);
            }
            String key = w.producer() + "|" + e.id();
            if (e.op() == Op.READ) {
                copies++;
                copied.add(e.id());
                if (gone.contains(key)) {
                    inversions++;
                }
            } else if (e.op() == Op.DELETE) {
                gone.add(key);
            }
            BsonTimestamp previous = last.put(key, e.clusterTime());
            if (previous != null && e.clusterTime().compareTo(previous) < 0) {
                inversions++;
            }
        }
        return new Order(copies, written.size(), inversions, copied);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
