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
 *       {@code fromInvalidate} flag), {@code 00} where MongoDB's token ends the event's identifier document, and
 *       {@code 04}, the end of the KeyString.</li>
 *   <li>a fragment of a split event (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/)
 *       has its event's token with a zero-based fragment number before the final {@code 04}, as MongoDB
 *       appends {@code fragmentNum} after the event identifier (https://jira.mongodb.org/browse/SERVER-71825,
 *       SERVER-107526: "the resume token of the original large event suffixed with a 'fragmentNum' field"),
 *       written as KeyString writes a small integer: {@code 29} for 0, {@code 2B} and one byte (n &lt;&lt; 1) below
 *       128, {@code 2C} and two bytes below 32768. So a whole event sorts before its fragments, and they in order.</li>
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
    private static final String IDENTIFIER_END = "00";
    private static final String KEY_END = "04";
    private static final int HWM_LENGTH = 2 + 16;
    /** Up to the fragment number: {@code 82}, the time, {@code 2B}, the txnOpIndex, the kind, the identifier's end. */
    private static final int EVENT_PREFIX_LENGTH = HWM_LENGTH + 2 + 8 + 2 + 2;
    private static final int MAX_FRAGMENTS = 1 << 15;

    public ResumeToken {
        if (kind != Kind.EVENT && fragment != 0) {
            throw new IllegalArgumentException("only an event has fragments");
        }
        if (kind == Kind.HIGH_WATER_MARK && txnOpIndex != 0 || txnOpIndex < 0) {
            throw new IllegalArgumentException("a txnOpIndex belongs to an event: " + txnOpIndex);
        }
        if (fragment < 0 || fragment > MAX_FRAGMENTS) {
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
        StringBuilder hex = new StringBuilder(EVENT_PREFIX_LENGTH + 8).append(TIMESTAMP_TYPE);
        appendHex(hex, clusterTime, 16);
        if (kind == Kind.HIGH_WATER_MARK) {
            return hex.toString();
        }
        appendHex(hex.append(EVENT_MARK), txnOpIndex, 8).append(kind == Kind.INVALIDATE ? "01" : "00").append(IDENTIFIER_END);
        if (fragment > 0) {
            int n = fragment - 1; // MongoDB's fragmentNum counts from 0
            if (n == 0) {
                hex.append("29");
            } else if (n < 128) {
                appendHex(hex.append("2B"), (long) n << 1, 2);
            } else {
                appendHex(hex.append("2C"), (long) n << 1, 4);
            }
        }
        return hex.append(KEY_END).toString();
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
        if (!h.startsWith(TIMESTAMP_TYPE) || (h.length() != HWM_LENGTH && h.length() < EVENT_PREFIX_LENGTH + 2)) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex);
        }
        try {
            long time = Long.parseUnsignedLong(h.substring(2, HWM_LENGTH), 16);
            if (h.length() == HWM_LENGTH) {
                return highWaterMark(time);
            }
            if (!h.startsWith(EVENT_MARK, HWM_LENGTH) || !h.startsWith(IDENTIFIER_END, HWM_LENGTH + 12) || !h.endsWith(KEY_END)) {
                throw new IllegalArgumentException("not a resume token of this server: " + hex);
            }
            int txnOpIndex = Integer.parseInt(h.substring(HWM_LENGTH + 2, HWM_LENGTH + 10), 16);
            String kind = h.substring(HWM_LENGTH + 10, HWM_LENGTH + 12);
            int fragment = fragmentNumber(h.substring(EVENT_PREFIX_LENGTH, h.length() - KEY_END.length()), hex);
            return switch (kind) {
                case "00" -> new ResumeToken(time, txnOpIndex, Kind.EVENT, fragment);
                case "01" -> {
                    if (fragment != 0) {
                        throw new IllegalArgumentException("not a resume token of this server: " + hex);
                    }
                    yield new ResumeToken(time, txnOpIndex, Kind.INVALIDATE, 0);
                }
                default -> throw new IllegalArgumentException("not a resume token of this server: " + hex);
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex, e);
        }
    }

    /** The fragment (from 1) a token's KeyString integer after the identifier names, 0 when there is none. */
    private static int fragmentNumber(String integer, String hex) {
        if (integer.isEmpty()) {
            return 0;
        }
        int n;
        if (integer.equals("29")) {
            n = 0;
        } else if (integer.length() == 4 && integer.startsWith("2B")) {
            n = Integer.parseInt(integer.substring(2), 16) >> 1;
        } else if (integer.length() == 6 && integer.startsWith("2C")) {
            n = Integer.parseInt(integer.substring(2), 16) >> 1;
        } else {
            throw new IllegalArgumentException("not a resume token of this server: " + hex);
        }
        return n + 1;
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
