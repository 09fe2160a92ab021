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
 * (or its way back is stopped) — and so is a link whose heartbeat has not come back yet since this task
 * started (a peer an earlier run heard from, or any peer when none is known): a link is healthy only once
 * a round trip through it proved it in this run. A dead link (a stopped source, a broker the consumer
 * cannot reach, a peer sink that does not run) is therefore never reported as healthy, nor is a restarted
 * sink still catching up.
 */
public final class RoundTripLag {
    private record Seen(long writtenAt, long seenAt) {
    }

    private final long startedAt;
    private final Map<String, Seen> byPeer = new TreeMap<>();
    private final Map<String, Long> expected = new TreeMap<>();

    /** @param startedAt when this task started (epoch ms): the age of a link nothing came back through yet */
    public RoundTripLag(long startedAt) {
        this.startedAt = startedAt;
    }

    public RoundTripLag() {
        this(System.currentTimeMillis());
    }

    /** A peer linked with before this task started: its heartbeat is expected back. */
    public void expect(String peer) {
        expected.putIfAbsent(peer, startedAt);
    }

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

    /** Every peer seen or expected. */
    public List<String> peers() {
        TreeMap<String, Boolean> all = new TreeMap<>();
        byPeer.keySet().forEach(p -> all.put(p, true));
        expected.keySet().forEach(p -> all.put(p, true));
        return new ArrayList<>(all.keySet());
    }

    /** Links lagging by more than {@code thresholdMs} at {@code now}, each with what was (not) seen. */
    public List<String> lagging(long now, long thresholdMs) {
        List<String> out = new ArrayList<>();
        byPeer.forEach((peer, s) -> {
            long age = now - s.writtenAt();
            if (age > thresholdMs) {
                out.add("the newest heartbeat back through " + peer + " was written " + age + " ms ago");
            }
        });
        // not proven yet: a link is healthy once a heartbeat has made the round trip through it in this run (a restarted
        // sink catching up on what it missed is not)
        expected.forEach((peer, since) -> {
            if (!byPeer.containsKey(peer)) {
                out.add("no heartbeat has come back through " + peer + " since this task started " + (now - since) + " ms ago");
            }
        });
        if (byPeer.isEmpty() && expected.isEmpty()) {
            out.add("no heartbeat has come back through any peer since this task started " + (now - startedAt) + " ms ago");
        }
        return out;
    }
}
