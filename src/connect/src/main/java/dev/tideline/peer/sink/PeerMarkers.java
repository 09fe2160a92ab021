package dev.tideline.peer.sink;

import dev.tideline.event.ResnapshotMarker;
import dev.tideline.log.LogText;
import dev.tideline.sink.front.MarkerReader;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drops a peer's source sent, which the peer sink does NOT apply. The source turns a drop of a collection (a
 * rename away, a dropDatabase) into a copy of nothing at the drop's cluster time: a {@code begin} and a
 * {@code complete} resnapshot marker of that epoch on every partition of the collection's topic, with no copied
 * record between. The plain sink's sweep then removes every document older than the epoch; the peer sink keeps them,
 * because that sweep cannot be made safe here yet: a marker carries no MAC of the link's key (anyone able to produce
 * to the topic could empty a collection on every peer), and removing documents older than the epoch on this cluster
 * alone lets the peers diverge the other way (a local write older than the drop still on its way to the peer is
 * inserted there after the drop). So each copy of nothing is reported, once per collection, epoch and cluster, when
 * its {@code complete} marker has come on every partition and none of the copy's records (whose version is the epoch)
 * came since its {@code begin}: a WARN naming the collection and what to do, and a count in the status document. Not
 * a health reason: the first copy of a collection that is empty at the peer (every new link of empty collections)
 * looks the same, and the markers do not say which it was. A copy that did copy documents, a repair of an {@code _id}
 * range, and the markers of this cluster's own source are not reported. One task reads every partition in peer mode,
 * so it sees all of them.
 */
final class PeerMarkers {
    private static final Logger log = LoggerFactory.getLogger(PeerMarkers.class);
    /** Copies followed at once: markers of more are forgotten, never reported (nothing grows without bound). */
    private static final int OPEN_COPIES = 1_000;

    /** A copy whose begin came: on which partitions its complete came since, and whether it copied anything. */
    private static final class Copy {
        final Set<Integer> completed = new HashSet<>();
        boolean copied;
    }

    private final String self;
    private final Map<List<Object>, Copy> open = new HashMap<>();
    /** Drops reported: the source sends a drop's markers again after a crash (at least once), reported once. */
    private final Set<List<Object>> reported = new HashSet<>();
    private long notApplied;
    private long lastAt = -1;
    private String last;

    PeerMarkers(String self) {
        this.self = self;
    }

    /**
     * @param cluster   the cluster whose source sent the marker (its {@code tl.cluster} header), null when the record
     *                  does not say
     * @param partition the partition the marker came on
     */
    void received(MarkerReader.Routed m, String cluster, int partition) {
        ResnapshotMarker marker = m.marker();
        if (self.equals(cluster) || !marker.scope().isAll()) {
            return;
        }
        List<Object> key = List.of(m.destination(), marker.epoch(), String.valueOf(cluster));
        if (marker.stage() == ResnapshotMarker.Stage.BEGIN) {
            if (open.size() < OPEN_COPIES && !reported.contains(key)) {
                open.putIfAbsent(key, new Copy());
            }
            return;
        }
        Copy copy = open.get(key);
        if (copy == null) {
            return; // its begin never came here (this sink started in the middle), or it was reported already
        }
        copy.completed.add(partition);
        if (copy.completed.size() < marker.partitions()) {
            return;
        }
        open.remove(key);
        if (!copy.copied) {
            if (reported.size() >= OPEN_COPIES) {
                reported.clear();
            }
            reported.add(key);
            report(m, cluster);
        }
    }

    /** A change read: when it is a record of an open copy (its version is the copy's epoch), that copy is no drop. */
    void changed(PeerChange c) {
        if (open.isEmpty() || c.sourceTime == null) {
            return;
        }
        open.forEach((key, copy) -> {
            if (key.get(0).equals(c.destination) && key.get(1).equals(c.sourceTime)) {
                copy.copied = true;
            }
        });
    }

    private void report(MarkerReader.Routed m, String cluster) {
        notApplied++;
        lastAt = System.currentTimeMillis();
        last = "a copy of nothing of " + m.marker().ns() + " (epoch " + ResnapshotMarker.show(m.marker().epoch())
                + ") from cluster " + (cluster == null ? "(unnamed)" : cluster) + ", which is how its source sends a drop (or a "
                + "rename away, a dropDatabase; or the copy of a collection that is empty there, or that sent nothing new), is "
                + "not applied: " + m.destination() + " keeps its documents from before it";
        log.warn("Peer sink: {}. Peer mode does not apply drops (nor renames away, nor dropDatabase). If the collection was "
                        + "dropped there, drop it on every cluster of the link, or set drop.policy=report on the peers' "
                        + "sources to have drops reported only; compare the clusters with ./verify --peers "
                        + "(docs/peer-replication.md#drops)",
                LogText.message(last));
    }

    /** How many drops were reported (once per collection, epoch and cluster) since the task started. */
    long notApplied() {
        return notApplied;
    }

    /** When the last one was (epoch ms), -1 when none was. */
    long lastAt() {
        return lastAt;
    }

    /** What the last one was about; null when none was. */
    String last() {
        return last;
    }
}
