package dev.tideline.peer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Round-trip lag per link, from heartbeats crossing it: this cluster's sink writes a heartbeat document
 * (its wall time) into its own cluster; the source carries it to the peer, whose sink applies it and whose
 * source re-emits it; this cluster's sink sees it back as an echo. The time from writing to seeing it back
 * is the link's round trip. A link whose newest heartbeat seen back is older than a threshold is lagging
 * (or its way back is stopped).
 */
public final class RoundTripLag {
    private record Seen(long writtenAt, long seenAt) {
    }

    private final Map<String, Seen> byPeer = new TreeMap<>();

    /** A heartbeat written here at {@code writtenAt} (epoch ms) came back through {@code peer} at {@code seenAt}. */
    public void echoed(String peer, long writtenAt, long seenAt) {
        Seen last = byPeer.get(peer);
        if (last == null || writtenAt > last.writtenAt()) {
            byPeer.put(peer, new Seen(writtenAt, seenAt));
        }
    }

    /** The last round trip measured per peer (ms). */
    public Map<String, Long> lastRoundTripMs() {
        Map<String, Long> out = new TreeMap<>();
        byPeer.forEach((peer, s) -> out.put(peer, Math.max(0, s.seenAt() - s.writtenAt())));
        return out;
    }

    /** Links whose newest heartbeat seen back was written more than {@code thresholdMs} before {@code now}, with that age. */
    public List<String> lagging(long now, long thresholdMs) {
        List<String> out = new ArrayList<>();
        byPeer.forEach((peer, s) -> {
            long age = now - s.writtenAt();
            if (age > thresholdMs) {
                out.add("the newest heartbeat back through " + peer + " was written " + age + " ms ago");
            }
        });
        return out;
    }
}
