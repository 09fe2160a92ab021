package dev.tideline.peer;

import java.util.Map;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The source's half of peer mode for ONE collection, pure: decides each change's origin and version.
 * <ul>
 *   <li>a document whose stamp is valid was written by a peer sink: origin and version are the
 *       stamp's;</li>
 *   <li>anything else is a local write: origin is this cluster, the version its cluster time raised by
 *       the {@link LogicalClock}, and the emitted copy carries that stamp (the document in MongoDB is
 *       stamped later by this cluster's own peer sink). Emitted again when the same content comes back
 *       with a later event (an update event's document is looked up when it is read, so an event read
 *       late shows a later write's content under its own, earlier time): the later label is the one that
 *       orders that write after what it overwrote;</li>
 *   <li>a delete is a peer sink's when a tombstone from another cluster is kept for the document and
 *       is newer than the version this source last emitted for it; otherwise it is local.</li>
 * </ul>
 *
 * <p>What it remembers per document is in memory and bounded ({@value #MEMORY} documents); the clock is
 * kept in the source offset. A document it has no memory of (forgotten, or last emitted before the
 * committed position a restart resumed from) was last emitted at a version no newer than the clock
 * restored then or the newest version forgotten since: a delete counts as a peer's only when its
 * tombstone is newer than that. When the guess is wrong, it is a peer's delete taken as a local one
 * (emitted again as a later local delete: the clusters still converge), never a local delete taken as
 * a peer's, which the peers would skip as an echo. (A local delete is only taken as a peer's when every
 * local write it deletes is older than that peer's tombstone, so it loses everywhere anyway.)
 */
public final class OriginLabeler {
    static final int MEMORY = LruMap.DOCUMENTS;

    /**
     * @param stamp for a local write, the stamp its emitted copy carries (null otherwise)
     */
    public record Label(String origin, Version version, Version base, PeerStamp stamp) {
    }

    private record Emitted(String content, Version version) {
    }

    private final String self;
    private final LogicalClock clock;
    /** no document it has forgotten was last emitted at a version newer than this */
    private BsonTimestamp forgottenUpTo;
    private final Map<BsonValue, Emitted> emitted = new LruMap<>(MEMORY, forgotten -> {
        BsonTimestamp t = forgotten.getValue().version().time();
        if (t.compareTo(forgottenUpTo) > 0) {
            forgottenUpTo = t;
        }
    });

    /** @param clock restored from the committed source offset (its value then bounds what a restart forgot) */
    public OriginLabeler(String self, LogicalClock clock) {
        this.self = self;
        this.clock = clock;
        this.forgottenUpTo = clock.current();
    }

    /**
     * A write (insert, update, replace, or a copy) whose document was detected as {@code d}.
     *
     * <p>Only a document the event carries itself (an insert, a replace, a copy) moves the clock: an update event's
     * document is looked up when the event is read, so read again after a restart it may show a much later state,
     * and a clock raised by it would label the replayed changes far later than the first time, letting them win
     * over writes made after them. Every peer sink write is an insert or a replace, so no version a local write can
     * overwrite is missed; the versions an update's document shows were observed (or labelled) when written here.
     *
     * @param time        the change's cluster time (a copy: its wall time)
     * @param ownDocument whether the document is the event's own (not looked up when the event was read)
     * @return null when it repeats exactly the version and content emitted last for this document
     */
    public Label write(BsonValue id, OriginDetector.Detected d, BsonTimestamp time, boolean ownDocument) {
        Emitted last = emitted.get(id);
        if (!d.local() && !ownDocument && d.stamp().origin().equals(self) && last != null && last.version().newerThan(d.stamp().version())) {
            // A looked-up document stamped by this cluster's sink with a version older than one this source emitted
            // for it since: the sink stamped the content of a later local write under an earlier event's version (that
            // event was read late and its lookup showed the later content). The content is that later write: a local
            // write, labelled now, or the peers would keep the content emitted in between.
            if (d.content().equals(last.content())) {
                return null; // emitted already, under the newer version
            }
            d = new OriginDetector.Detected(d.content(), null, null, null);
        }
        if (!d.local()) {
            Version v = d.stamp().version();
            if (last != null && v.equals(last.version()) && d.content().equals(last.content())) {
                return null; // the sink stamping a local write with the version emitted for it: nothing new
            }
            if (ownDocument) {
                clock.observe(v.time());
            }
            emitted.put(id, new Emitted(d.content(), v));
            return new Label(v.origin(), v, d.stamp().base(), null);
        }
        Version base = d.stale() != null ? d.stale().version() : last != null ? last.version() : null;
        Version floor = ownDocument ? base : null;
        Version version = new Version(clock.label(time, floor == null ? null : floor.time()), self);
        emitted.put(id, new Emitted(d.content(), version));
        return new Label(self, version, base, new PeerStamp(version, d.content(), base));
    }

    /**
     * A delete.
     *
     * @param tombstone the version of the tombstone kept for the document now (valid, any origin), null when none
     * @param time      the delete's cluster time
     */
    public Label delete(BsonValue id, Version tombstone, BsonTimestamp time) {
        Emitted last = emitted.get(id);
        if (tombstone != null && !tombstone.origin().equals(self) && !clock.tooFarAhead(tombstone.time())
                && (last != null ? tombstone.newerThan(last.version()) : tombstone.time().compareTo(forgottenUpTo) > 0)) {
            // the tombstone is read now, not as of the event: read again after a restart it may be a later delete's,
            // so it moves the clock no further than a little past the event
            clock.observe(earlier(tombstone.time(), plus(time, PeerLimits.OBSERVE_AHEAD_SECONDS)));
            emitted.put(id, new Emitted(null, tombstone));
            return new Label(tombstone.origin(), tombstone, null, null);
        }
        Version base = last != null ? last.version() : null;
        Version version = new Version(clock.label(time, base == null ? null : base.time()), self);
        emitted.put(id, new Emitted(null, version));
        return new Label(self, version, base, null);
    }

    private static BsonTimestamp earlier(BsonTimestamp a, BsonTimestamp b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static BsonTimestamp plus(BsonTimestamp t, long seconds) {
        long s = Math.min(0xFFFF_FFFFL, Integer.toUnsignedLong(t.getTime()) + seconds);
        return new BsonTimestamp((int) s, 0);
    }

    /** The clock's value: what the record's source offset keeps. */
    public BsonTimestamp clock() {
        return clock.current();
    }
}
