package dev.tideline.fanout.kafka;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the gateway last delivered of each recently changed document, bounded (least recently seen
 * go first): its tenant, so a delete that carries none reaches the tenant the document had; and its
 * version (cluster time and a hash of its content), so a change the source sends again after a crash
 * is delivered once. One instance per reader of the topics, which learns only from the records it
 * reads itself: what the live consumer remembers now may be another document that reuses the same
 * {@code _id} (of another tenant), so a reader of the past never asks it.
 */
public final class DocumentMemory {
    /** What to do with a change of a document. */
    public enum Verdict {
        /** A version not delivered yet. */
        DELIVER,
        /** The version delivered last, again. */
        REPLAYED,
        /** Older than the version delivered last (cluster time): a replay of the past. */
        STALE
    }

    /** @param clusterTime -1 when the change has none (a copy or a scan) */
    private record Entry(String tenant, long clusterTime, long contentHash, boolean deleted) {
    }

    private final int maxEntries;
    private final Map<String, Entry> entries;

    public DocumentMemory(int maxEntries) {
        this.maxEntries = maxEntries;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
                return size() > DocumentMemory.this.maxEntries;
            }
        };
    }

    /** The tenant the document had when last seen, or null. */
    public synchronized String tenantOf(String documentKey) {
        Entry e = entries.get(documentKey);
        return e == null ? null : e.tenant();
    }

    /**
     * Decides on one change of a document and remembers it when delivered.
     *
     * @param clusterTime the change's cluster time as one number (seconds &lt;&lt; 32 | increment), -1 when none
     * @param contentHash a hash of the document after the change (any constant for a delete)
     */
    public synchronized Verdict admit(String documentKey, String tenant, long clusterTime, long contentHash, boolean delete) {
        Entry last = entries.get(documentKey);
        if (last != null) {
            boolean sameContent = last.contentHash() == contentHash && last.deleted() == delete;
            if (clusterTime >= 0 && last.clusterTime() >= 0) {
                if (clusterTime < last.clusterTime()) {
                    return Verdict.STALE;
                }
                if (clusterTime == last.clusterTime() && sameContent) {
                    return Verdict.REPLAYED;
                }
            } else if (clusterTime < 0 && sameContent) {
                // a copy (no cluster time) of exactly what was delivered last: nothing new for a subscriber
                return Verdict.REPLAYED;
            }
        }
        long keptTime = last == null ? clusterTime : Math.max(clusterTime, last.clusterTime());
        entries.put(documentKey, new Entry(tenant, keptTime, contentHash, delete));
        return Verdict.DELIVER;
    }

    public synchronized int size() {
        return entries.size();
    }

    /** FNV-1a, 64 bits, over the characters of a rendered document. */
    public static long hash(String text) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h ^= text.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }
}
