package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.Locale;

/**
 * A change-stream position, written as MongoDB 4.2+ writes its resume tokens: {@code {_data: "<hex>"}}
 * whose hex starts with the KeyString type byte of a Timestamp ({@code 82}) followed by the cluster
 * time's 8 bytes big-endian, in upper case (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens).
 * So tokens compare as strings in event order, as MongoDB's do.
 *
 * <p>What follows the cluster time is the stand-in's own, kept fixed-width so that the order holds:
 * <ul>
 *   <li>a high-water-mark token (MongoDB's post-batch resume token of a batch that ended without an
 *       event) is the cluster time alone: a prefix, so it sorts before every event at that time;</li>
 *   <li>an event token adds {@code 2B}, an 8-digit {@code txnOpIndex} (the event's place among the operations
 *       of one transaction, which all share the commit's cluster time; 0 outside a transaction), a kind
 *       ({@code 00} the entry's event, {@code 01} the {@code invalidate} that follows it: MongoDB's
 *       {@code fromInvalidate} flag) and a 4-digit fragment number ({@code 0000} for a whole event, 1..n for the
 *       fragments of a split event,
 *       https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/).</li>
 * </ul>
 * The fields come in the order MongoDB's resume token data compares them (cluster time, token type,
 * {@code txnOpIndex}, {@code fromInvalidate}, ..., fragment number: {@code resume_token.h} in the server's
 * src/mongo/db/pipeline), so a stream resumed at one event of a transaction gets the transaction's later events.
 * A stream returns the events whose token is greater than its position.
 */
public record ResumeToken(long clusterTime, int txnOpIndex, Kind kind, int fragment) implements Comparable<ResumeToken> {
    /** What a token marks. The declaration order is the sort order at one cluster time. */
    public enum Kind { HIGH_WATER_MARK, EVENT, INVALIDATE }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final String TIMESTAMP_TYPE = "82";
    private static final String EVENT_MARK = "2B";
    private static final int HWM_LENGTH = 2 + 16;
    private static final int EVENT_LENGTH = HWM_LENGTH + 2 + 8 + 2 + 4;

    public ResumeToken {
        if (kind != Kind.EVENT && fragment != 0) {
            throw new IllegalArgumentException("only an event has fragments");
        }
        if (kind == Kind.HIGH_WATER_MARK && txnOpIndex != 0 || txnOpIndex < 0) {
            throw new IllegalArgumentException("a txnOpIndex belongs to an event: " + txnOpIndex);
        }
        if (fragment < 0 || fragment > 0xFFFF) {
            throw new IllegalArgumentException("fragment out of range: " + fragment);
        }
    }

    /** The position before every event at {@code clusterTime}: a stream resumed here sees them all. */
    public static ResumeToken highWaterMark(long clusterTime) {
        return new ResumeToken(clusterTime, 0, Kind.HIGH_WATER_MARK, 0);
    }

    /** The position after every event at {@code clusterTime} (timestamps are discrete). */
    public static ResumeToken after(long clusterTime) {
        return highWaterMark(clusterTime + 1);
    }

    public static ResumeToken event(long clusterTime) {
        return event(clusterTime, 0);
    }

    /** The token of the operation at {@code txnOpIndex} of the transaction committed at {@code clusterTime}. */
    public static ResumeToken event(long clusterTime, int txnOpIndex) {
        return new ResumeToken(clusterTime, txnOpIndex, Kind.EVENT, 0);
    }

    public static ResumeToken invalidate(long clusterTime) {
        return new ResumeToken(clusterTime, 0, Kind.INVALIDATE, 0);
    }

    /** The token of fragment {@code n} (from 1) of this event. */
    public ResumeToken fragment(int n) {
        return new ResumeToken(clusterTime, txnOpIndex, Kind.EVENT, n);
    }

    /** The token of the whole event this fragment's token belongs to. */
    public ResumeToken wholeEvent() {
        return new ResumeToken(clusterTime, txnOpIndex, kind, 0);
    }

    public boolean isInvalidate() {
        return kind == Kind.INVALIDATE;
    }

    public boolean isFragment() {
        return fragment > 0;
    }

    public String hex() {
        StringBuilder hex = new StringBuilder(EVENT_LENGTH).append(TIMESTAMP_TYPE);
        appendHex(hex, clusterTime, 16);
        switch (kind) {
            case EVENT -> appendHex(appendHex(hex.append(EVENT_MARK), txnOpIndex, 8).append("00"), fragment, 4);
            case INVALIDATE -> appendHex(hex.append(EVENT_MARK), txnOpIndex, 8).append("01").append("0000");
            default -> {
            }
        }
        return hex.toString();
    }

    private static StringBuilder appendHex(StringBuilder out, long value, int digits) {
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            out.append(HEX[(int) (value >>> shift) & 0xF]);
        }
        return out;
    }

    /** {@code {_data: "<hex>"}}, the event's {@code _id}. */
    public Document toDocument() {
        return new Document("_data", hex());
    }

    /**
     * Reads a token the stand-in issued.
     *
     * @throws IllegalArgumentException when it is not one; the caller answers InvalidResumeToken
     */
    public static ResumeToken parse(Object token) {
        if (!(token instanceof Document d) || !(d.get("_data") instanceof String hex)) {
            throw new IllegalArgumentException("a resume token is {_data: \"<hex string>\"}, got " + token);
        }
        String h = hex.toUpperCase(Locale.ROOT);
        if (!h.startsWith(TIMESTAMP_TYPE) || (h.length() != HWM_LENGTH && h.length() != EVENT_LENGTH)) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex);
        }
        try {
            long time = Long.parseUnsignedLong(h.substring(2, HWM_LENGTH), 16);
            if (h.length() == HWM_LENGTH) {
                return highWaterMark(time);
            }
            if (!h.startsWith(EVENT_MARK, HWM_LENGTH)) {
                throw new IllegalArgumentException("not a resume token of this server: " + hex);
            }
            int txnOpIndex = Integer.parseInt(h.substring(HWM_LENGTH + 2, HWM_LENGTH + 10), 16);
            String kind = h.substring(HWM_LENGTH + 10, HWM_LENGTH + 12);
            int fragment = Integer.parseInt(h.substring(HWM_LENGTH + 12), 16);
            return switch (kind) {
                case "00" -> new ResumeToken(time, txnOpIndex, Kind.EVENT, fragment);
                case "01" -> new ResumeToken(time, txnOpIndex, Kind.INVALIDATE, 0);
                default -> throw new IllegalArgumentException("not a resume token of this server: " + hex);
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex, e);
        }
    }

    @Override
    public int compareTo(ResumeToken other) {
        int byTime = Long.compareUnsigned(clusterTime, other.clusterTime);
        if (byTime != 0) {
            return byTime;
        }
        if (kind == Kind.HIGH_WATER_MARK || other.kind == Kind.HIGH_WATER_MARK) {
            return kind.compareTo(other.kind);
        }
        int byOp = Integer.compare(txnOpIndex, other.txnOpIndex);
        if (byOp != 0) {
            return byOp;
        }
        int byKind = kind.compareTo(other.kind);
        return byKind != 0 ? byKind : Integer.compare(fragment, other.fragment);
    }

    public boolean isAfter(ResumeToken other) {
        return compareTo(other) > 0;
    }

    @Override
    public String toString() {
        return hex();
    }
}
