package dev.tideline.fanout.channel;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which topics hold the changes of a namespace {@code <db>.<collection>}: those whose name ends with
 * it (the source's default {@code <prefix>.<db>.<collection>}), and those a change of it was read
 * from (a {@code topic.namespace.map} may name topics otherwise). A subscriber's position covers
 * these topics.
 */
public final class NamespaceTopics {
    /** Records are untrusted: namespaces they name are remembered up to this many. */
    static final int MAX_LEARNED = 100_000;

    private final Map<String, Set<String>> learned = new ConcurrentHashMap<>();

    /** A change of {@code db.coll} was read from {@code topic}. */
    public void learned(String db, String coll, String topic) {
        String ns = db + "." + coll;
        Set<String> topics = learned.get(ns);
        if (topics != null && topics.contains(topic)) {
            return;
        }
        if (topics == null && learned.size() >= MAX_LEARNED) {
            return;
        }
        learned.computeIfAbsent(ns, k -> ConcurrentHashMap.newKeySet()).add(topic);
    }

    /** The topics among {@code assigned} that hold (or by their name would hold) the namespace's changes. */
    public SortedSet<String> topicsFor(String db, String coll, Collection<String> assigned) {
        SortedSet<String> out = new TreeSet<>();
        String ns = db + "." + coll;
        for (String topic : assigned) {
            if (topic.equals(ns) || topic.endsWith("." + ns)) {
                out.add(topic);
            }
        }
        Set<String> seen = learned.get(ns);
        if (seen != null) {
            for (String topic : seen) {
                if (assigned.contains(topic)) {
                    out.add(topic);
                }
            }
        }
        return out;
    }
}
