package dev.tideline.peer;

import java.util.Locale;

/**
 * Peer recovery, pure: for one {@code _id} that differs between two peer clusters after the link was down
 * longer than the topics' retention or the tombstone TTL (so replication cannot bring them together), which
 * side wins, from what each side holds now (docs/peer-recovery.md).
 *
 * <p>What is certain, decided whatever the policy:
 * <ul>
 *   <li>both present, both stamped: the greater version wins, as last-writer-wins would have decided;</li>
 *   <li>a stamped side against a local write never replicated (no valid stamp) that was made ON TOP of a
 *       version at least as new (its stale stamp, the version it was based on): the local write is newer;</li>
 *   <li>one side absent keeping a tombstone newer than the present version: the delete wins;</li>
 *   <li>else, one side absent and the present document's stamp says the ABSENT side wrote it: that cluster had
 *       it and no longer has it, so it deleted it (its tombstone expired, or an older one is left): the delete
 *       wins;</li>
 *   <li>else, one side absent keeping a tombstone older than the present version (or than the version a local
 *       write there was made on): the present document wins.</li>
 * </ul>
 * What is not: one side absent with nothing telling "never received" from "deleted, tombstone expired"
 * (decided by the {@link Policy}), and two present documents whose order is unknown (a local write never
 * replicated has no version: its change event, which would have given it one, is gone). Two such local writes
 * are concurrent by construction (neither cluster saw the other's), so they are a {@link Rule#CONFLICT} too;
 * the policy says nothing about which content to keep, so a conflict is always left to the operator.
 */
public final class RecoveryRule {
    private RecoveryRule() {
    }

    /** What to do with an id whose presence nothing decides. */
    public enum Policy {
        /** list it, change nothing (the default) */
        REPORT,
        /** the present document wins: copied to the side without it */
        COPY,
        /** the absence wins: the document is deleted where it is */
        DELETE;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @throws IllegalArgumentException naming the accepted values */
        public static Policy parse(String s) {
            for (Policy p : values()) {
                if (p.wireName().equals(s.trim().toLowerCase(Locale.ROOT))) {
                    return p;
                }
            }
            throw new IllegalArgumentException("'" + s + "' is not a recovery policy: report, copy or delete");
        }
    }

    /** Why a side won (or nothing did). */
    public enum Rule {
        /** both absent, or the same content (stamps aside): nothing to do */
        SAME,
        /** both stamped: the greater version */
        NEWER_STAMP,
        /** a local write never replicated, made on top of a version at least as new as the other side's */
        LOCAL_WRITE_AFTER,
        /** the present document's version is newer than the absent side's tombstone */
        NEWER_THAN_TOMBSTONE,
        /** the absent side's tombstone is newer than the present document */
        NEWER_TOMBSTONE,
        /** the present document was written by the absent side's cluster, which no longer has it */
        DELETED_BY_ORIGIN,
        /** one side absent, nothing decides: the policy does */
        AMBIGUOUS,
        /** both present, their order unknown: left to the operator */
        CONFLICT;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public enum Action {
        /** nothing is written */
        NONE,
        /** the winner's document is written at the loser */
        COPY,
        /** the loser's document is deleted, with a tombstone */
        DELETE
    }

    /**
     * What one cluster holds for the id.
     *
     * @param cluster   the cluster's id ({@code peer.cluster.id})
     * @param content   hash of the document without its stamp ({@link ContentHash}); null when absent
     * @param stamp     the version of its valid stamp (authentic, matching the content); null when absent or when
     *                  the document is a local write never replicated
     * @param staleBase for a local write: the version of the authentic stamp it still carries from the write it
     *                  changed (what it was based on); null when unknown
     * @param tombstone the version of an authentic, unexpired tombstone kept for it; null when none
     */
    public record Side(String cluster, String content, Version stamp, Version staleBase, Version tombstone) {
        public static Side absent(String cluster, Version tombstone) {
            return new Side(cluster, null, null, null, tombstone);
        }

        public static Side stamped(String cluster, String content, Version stamp) {
            return new Side(cluster, content, stamp, null, null);
        }

        public static Side local(String cluster, String content, Version staleBase) {
            return new Side(cluster, content, null, staleBase, null);
        }

        public boolean present() {
            return content != null;
        }
    }

    /**
     * @param winner    the side whose state the other must take (0: the first, 1: the second); -1 when none
     * @param tombstone for {@link Action#DELETE}: the delete's version when one is known (the winner's tombstone); null:
     *                  a new version must be made at the winner
     * @param restamp   for {@link Action#COPY}: the winner is a local write without a version, to stamp with a new one
     *                  at the winner before it is copied
     */
    public record Decision(Rule rule, Action action, int winner, Version tombstone, boolean restamp) {
        static Decision none(Rule rule) {
            return new Decision(rule, Action.NONE, -1, null, false);
        }

        static Decision copy(Rule rule, int winner, Side w) {
            return new Decision(rule, Action.COPY, winner, null, w.stamp() == null);
        }

        static Decision delete(Rule rule, int winner, Version tombstone) {
            return new Decision(rule, Action.DELETE, winner, tombstone, false);
        }

        /** The side that loses (its state is replaced), -1 when none. */
        public int loser() {
            return winner < 0 ? -1 : 1 - winner;
        }
    }

    public static Decision decide(Side first, Side second, Policy policy) {
        if (!first.present() && !second.present()) {
            return Decision.none(Rule.SAME);
        }
        if (first.present() && second.present()) {
            return bothPresent(first, second);
        }
        int p = first.present() ? 0 : 1;
        return onePresent(p, p == 0 ? first : second, p == 0 ? second : first, policy);
    }

    private static Decision bothPresent(Side a, Side b) {
        if (a.content().equals(b.content())) {
            return Decision.none(Rule.SAME); // the stamps alone differ: not a difference between peers
        }
        if (a.stamp() != null && b.stamp() != null) {
            int c = a.stamp().compareTo(b.stamp());
            // one version with two contents cannot come from the link (the MAC covers the content): nothing to trust
            return c == 0 ? Decision.none(Rule.CONFLICT) : Decision.copy(Rule.NEWER_STAMP, c > 0 ? 0 : 1, c > 0 ? a : b);
        }
        if (a.stamp() == null && b.stamp() != null && atLeast(a.staleBase(), b.stamp())) {
            return Decision.copy(Rule.LOCAL_WRITE_AFTER, 0, a);
        }
        if (b.stamp() == null && a.stamp() != null && atLeast(b.staleBase(), a.stamp())) {
            return Decision.copy(Rule.LOCAL_WRITE_AFTER, 1, b);
        }
        return Decision.none(Rule.CONFLICT);
    }

    /** @param p the index of the present side */
    private static Decision onePresent(int p, Side present, Side absent, Policy policy) {
        int x = 1 - p;
        Version tomb = absent.tombstone();
        Version version = present.stamp();
        if (tomb != null && version != null && tomb.compareTo(version) > 0) {
            return Decision.delete(Rule.NEWER_TOMBSTONE, x, tomb);
        }
        if (version != null && version.origin().equals(absent.cluster())) {
            // the absent side had this very version (it made it) and has it no more: deleted since, whatever
            // became of its tombstone (expired, or an older one left from before)
            return Decision.delete(Rule.DELETED_BY_ORIGIN, x, null);
        }
        if (tomb != null && (version != null || atLeast(present.staleBase(), tomb))) {
            // a version made after the delete (a local write: on top of one made after it)
            return Decision.copy(version != null ? Rule.NEWER_THAN_TOMBSTONE : Rule.LOCAL_WRITE_AFTER, p, present);
        }
        return switch (policy) {
            case REPORT -> Decision.none(Rule.AMBIGUOUS);
            case COPY -> Decision.copy(Rule.AMBIGUOUS, p, present);
            case DELETE -> Decision.delete(Rule.AMBIGUOUS, x, null);
        };
    }

    private static boolean atLeast(Version v, Version than) {
        return v != null && v.compareTo(than) >= 0;
    }
}
