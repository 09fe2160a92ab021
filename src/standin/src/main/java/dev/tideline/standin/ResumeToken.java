package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.Locale;

/**
 * A change-stream position, written as MongoDB 4.2+ writes its resume tokens: {@code {_data: "<hex>"}}
 * whose hex starts with the KeyString type byte of a Timestamp ({@code 82}) followed by the cluster
 * time's 8 bytes big-endian, in upper case (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens).
 * So tokens compare as strings in event order, as MongoDB's do.
 *
 * <p>What follows the cluster time is the stand-in's own, written so that the order holds:
 * <ul>
 *   <li>a high-water-mark token (MongoDB's post-batch resume token of a batch that ended without an
 *       event) is the cluster time alone: a prefix, so it sorts before every event at that time;</li>
 *   <li>an event token adds {@code 2B}, the {@code txnOpIndex} as a KeyString integer (below; the event's place
 *       among the operations of one transaction, which all share the commit's cluster time; 0 outside a transaction), a kind
 *       ({@code 00} the entry's event, {@code 01} the {@code invalidate} that follows it: MongoDB's
 *       {@code fromInvalidate} flag), {@code 00} where MongoDB's token ends the event's identifier document, and
 *       {@code 04}, the end of the KeyString.</li>
 *   <li>a fragment of a split event (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/)
 *       has its event's token with a zero-based fragment number before the final {@code 04}, as MongoDB
 *       appends {@code fragmentNum} after the event identifier (https://jira.mongodb.org/browse/SERVER-71825,
 *       SERVER-107526: "the resume token of the original large event suffixed with a 'fragmentNum' field"),
 *       written as a KeyString integer. So a whole event sorts before its fragments, and they in order.</li>
 * </ul>
 * A KeyString integer is written as MongoDB's KeyString writes a small non-negative integer: a type byte, then the
 * value shifted left by one (the low bit flags a fraction) in as few bytes as hold it, big-endian: {@code 29} for 0
 * ({@code kNumericZero}), {@code 2B} and one byte below 128 ({@code kNumericPositive1ByteInt}), {@code 2C} and two
 * bytes below 32768 ({@code kNumericPositive2ByteInt}); {@code CType} in the server's
 * src/mongo/db/storage/key_string/key_string.cpp, where {@code kNumeric} is 30. A longer integer sorts after a shorter
 * one by its type byte, so the strings compare in the integers' order. The fixed-width hex the txnOpIndex was once
 * written as could end like a fragment number (0x2C: {@code 0000002C 00 00 04}), and clients that tell a fragment's
 * token by its ending would take the event for a fragment. Both numbers stop at 32767: a three-byte {@code 2D}
 * integer could end in {@code 00 2C} and look like a fragment again.
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
    private static final String KS_ZERO = "29";
    private static final String KS_ONE_BYTE = "2B";
    private static final String KS_TWO_BYTES = "2C";
    private static final int HWM_LENGTH = 2 + 16;
    /** The shortest event token: {@code 82}, the time, {@code 2B}, txnOpIndex 0 ({@code 29}), the kind, the identifier's end, the end. */
    private static final int MIN_EVENT_LENGTH = HWM_LENGTH + 2 + 2 + 2 + 2 + 2;
    /** The largest KeyString integer the stand-in writes: two bytes of n &lt;&lt; 1. */
    private static final int MAX_KEY_STRING_INT = (1 << 15) - 1;
    private static final int MAX_FRAGMENTS = MAX_KEY_STRING_INT + 1;
    /** The last operation of a transaction whose events a change stream can number. */
    public static final int MAX_TXN_OP_INDEX = MAX_KEY_STRING_INT;

    public ResumeToken {
        if (kind != Kind.EVENT && fragment != 0) {
            throw new IllegalArgumentException("only an event has fragments");
        }
        if (kind == Kind.HIGH_WATER_MARK && txnOpIndex != 0 || txnOpIndex < 0) {
            throw new IllegalArgumentException("a txnOpIndex belongs to an event: " + txnOpIndex);
        }
        if (txnOpIndex > MAX_TXN_OP_INDEX) {
            throw new IllegalArgumentException("the stand-in numbers the events of a transaction of at most "
                    + (MAX_TXN_OP_INDEX + 1) + " operations, got txnOpIndex " + txnOpIndex + ": commit fewer operations at once");
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
        StringBuilder hex = new StringBuilder(HWM_LENGTH + 20).append(TIMESTAMP_TYPE);
        appendHex(hex, clusterTime, 16);
        if (kind == Kind.HIGH_WATER_MARK) {
            return hex.toString();
        }
        appendKeyStringInt(hex.append(EVENT_MARK), txnOpIndex).append(kind == Kind.INVALIDATE ? "01" : "00").append(IDENTIFIER_END);
        if (fragment > 0) {
            appendKeyStringInt(hex, fragment - 1); // MongoDB's fragmentNum counts from 0
        }
        return hex.append(KEY_END).toString();
    }

    /** Writes {@code n} (0 to {@link #MAX_KEY_STRING_INT}) as a KeyString integer (see the class comment). */
    private static StringBuilder appendKeyStringInt(StringBuilder hex, int n) {
        if (n == 0) {
            return hex.append(KS_ZERO);
        }
        return n < 128 ? appendHex(hex.append(KS_ONE_BYTE), (long) n << 1, 2) : appendHex(hex.append(KS_TWO_BYTES), (long) n << 1, 4);
    }

    /** The length in hex digits of the KeyString integer at {@code at} of {@code h} (upper case), or -1 if none starts there. */
    private static int keyStringIntLength(String h, int at) {
        if (h.startsWith(KS_ZERO, at)) {
            return 2;
        }
        if (h.startsWith(KS_ONE_BYTE, at)) {
            return 4;
        }
        return h.startsWith(KS_TWO_BYTES, at) ? 6 : -1;
    }

    /**
     * Reads the KeyString integer that is all of {@code integer} (upper case), as {@link #appendKeyStringInt} writes it.
     *
     * @throws IllegalArgumentException when it is not one; the caller answers InvalidResumeToken
     */
    private static int readKeyStringInt(String integer, String hex) {
        int length = keyStringIntLength(integer, 0);
        if (length != integer.length()) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex);
        }
        if (length == 2) {
            return 0;
        }
        int shifted = Integer.parseInt(integer.substring(2), 16);
        int n = shifted >> 1;
        // as written: an even value in the fewest bytes (2C only from 128 on); anything else is not this server's
        if ((shifted & 1) != 0 || n == 0 || (length == 6) != (n >= 128)) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex);
        }
        return n;
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
        if (!h.startsWith(TIMESTAMP_TYPE) || (h.length() != HWM_LENGTH && h.length() < MIN_EVENT_LENGTH)) {
            throw new IllegalArgumentException("not a resume token of this server: " + hex);
        }
        try {
            long time = Long.parseUnsignedLong(h.substring(2, HWM_LENGTH), 16);
            if (h.length() == HWM_LENGTH) {
                return highWaterMark(time);
            }
            int opAt = HWM_LENGTH + EVENT_MARK.length();
            int kindAt = opAt + keyStringIntLength(h, opAt);
            int fragmentAt = kindAt + 2 + IDENTIFIER_END.length();
            if (!h.startsWith(EVENT_MARK, HWM_LENGTH) || kindAt < opAt || fragmentAt + KEY_END.length() > h.length()
                    || !h.startsWith(IDENTIFIER_END, kindAt + 2) || !h.endsWith(KEY_END)) {
                throw new IllegalArgumentException("not a resume token of this server: " + hex);
            }
            int txnOpIndex = readKeyStringInt(h.substring(opAt, kindAt), hex);
            String kind = h.substring(kindAt, kindAt + 2);
            String fragmentNum = h.substring(fragmentAt, h.length() - KEY_END.length());
            int fragment = fragmentNum.isEmpty() ? 0 : readKeyStringInt(fragmentNum, hex) + 1; // fragmentNum counts from 0
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
