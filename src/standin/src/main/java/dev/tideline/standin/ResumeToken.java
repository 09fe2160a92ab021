package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.Locale;

/**
 * A change-stream position, written as MongoDB 7.0 writes its resume tokens (version 2): {@code {_data: "<hex>"}}, the
 * upper-case hex of a KeyString (V1, ascending) of the token's fields in this order
 * (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens; {@code ResumeToken::ResumeToken(const
 * ResumeTokenData&)} in the server's src/mongo/db/pipeline/resume_token.cpp):
 * <ol>
 *   <li>the cluster time: {@code 82} (KeyString's Timestamp type) and its 8 bytes big-endian;</li>
 *   <li>the token's version, 2: {@code 2B04};</li>
 *   <li>the token type: {@code 2C0100} (128) for an event, {@code 29} (0) for a high-water mark, so a high-water mark
 *       sorts before every event at its cluster time;</li>
 *   <li>{@code txnOpIndex}: the event's place among the operations of one transaction, which all share the commit's
 *       cluster time; 0 outside a transaction;</li>
 *   <li>{@code fromInvalidate}: {@code 6E} (false), {@code 6F} for the {@code invalidate} that follows its event;</li>
 *   <li>the collection's UUID: MongoDB writes the real one ({@code 5A 10 04} and 16 bytes); the stand-in's collections
 *       have none, so it writes what version 2 writes for an event without a UUID, null ({@code 14});</li>
 *   <li>the event identifier, a document: MongoDB 7.0 writes {@code {operationType, documentKey}} for a CRUD event and
 *       {@code {operationType, operationDescription}} for another (the {@code ResumeTokenData} constructor, same file).
 *       The stand-in writes an empty document ({@code 46 00}): every event it makes has a cluster time,
 *       {@code txnOpIndex} and {@code fromInvalidate} of its own (one oplog entry per event; a transaction's by
 *       {@code txnOpIndex}; the {@code invalidate} by the flag), so the identifier never decides an order, and
 *       clients must treat {@code _data} as opaque anyway. A high-water mark has no identifier;</li>
 *   <li>for a fragment of a split event
 *       (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/) its zero-based
 *       {@code fragmentNum}: MongoDB appends it to its event's token (SERVER-71825; SERVER-107526: "the resume token
 *       of the original large event suffixed with a 'fragmentNum' field"), so a whole event sorts before its
 *       fragments, and they in order;</li>
 *   <li>{@code 04}, the end of the KeyString.</li>
 * </ol>
 * So a version 2 high-water mark is {@code 82<time>2B0429296E1404}, as the postBatchResumeToken in MongoDB's manual
 * (8263515EAC000000022B0429296E1404), and an event's token starts as the manual's insert's
 * ({@code 82<time>2B042C0100296E}). Each integer is written as KeyString writes a non-negative NumberInt: {@code 29}
 * for 0 ({@code kNumericZero}), else a type byte {@code 2B} to {@code 2E} ({@code kNumericPositive1ByteInt} and up)
 * for the number of bytes that hold the value shifted left by one (the low bit flags a fraction), then those bytes
 * big-endian ({@code _appendPreshiftedIntegerPortion} in src/mongo/db/storage/key_string/key_string.cpp). A longer
 * integer sorts after a shorter one by its type byte, so the strings compare in the fields' order, up to
 * {@code txnOpIndex} {@link Integer#MAX_VALUE} ({@code 2EFFFFFFFE}). A stream returns the events whose token is
 * greater than its position.
 */
public record ResumeToken(long clusterTime, int txnOpIndex, Kind kind, int fragment) implements Comparable<ResumeToken> {
    /** What a token marks. The declaration order is the sort order at one cluster time. */
    public enum Kind { HIGH_WATER_MARK, EVENT, INVALIDATE }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final String TIMESTAMP_TYPE = "82";
    private static final String VERSION_2 = "2B04";
    private static final String HIGH_WATER_MARK_TYPE = "29";
    private static final String EVENT_TYPE = "2C0100";
    private static final String FALSE = "6E";
    private static final String TRUE = "6F";
    /** The UUID the stand-in has not: null, as version 2 writes a missing one. */
    private static final String NO_UUID = "14";
    /** The stand-in's event identifier: an empty document (see the class comment). */
    private static final String EMPTY_IDENTIFIER = "4600";
    private static final String KEY_END = "04";
    private static final String KS_ZERO = "29";
    private static final int KS_ONE_BYTE = 0x2B;
    private static final int KS_FOUR_BYTES = 0x2E;
    private static final int TIME_LENGTH = 2 + 16;
    /** The hex of a high-water mark after its cluster time: version, type 0, txnOpIndex 0, false, null, the end. */
    private static final String HIGH_WATER_MARK_REST = VERSION_2 + HIGH_WATER_MARK_TYPE + KS_ZERO + FALSE + NO_UUID + KEY_END;
    private static final String EVENT_HEAD = VERSION_2 + EVENT_TYPE;
    /** The last operation of a transaction whose events a change stream can number: txnOpIndex is a NumberInt. */
    public static final int MAX_TXN_OP_INDEX = Integer.MAX_VALUE;

    public ResumeToken {
        if (kind != Kind.EVENT && fragment != 0) {
            throw new IllegalArgumentException("only an event has fragments");
        }
        if (kind == Kind.HIGH_WATER_MARK && txnOpIndex != 0 || txnOpIndex < 0) {
            throw new IllegalArgumentException("a txnOpIndex belongs to an event: " + txnOpIndex);
        }
        if (fragment < 0) {
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
        StringBuilder hex = new StringBuilder(TIME_LENGTH + 40).append(TIMESTAMP_TYPE);
        appendHex(hex, clusterTime, 16);
        if (kind == Kind.HIGH_WATER_MARK) {
            return hex.append(HIGH_WATER_MARK_REST).toString();
        }
        appendKeyStringInt(hex.append(EVENT_HEAD), txnOpIndex);
        hex.append(kind == Kind.INVALIDATE ? TRUE : FALSE).append(NO_UUID).append(EMPTY_IDENTIFIER);
        if (fragment > 0) {
            appendKeyStringInt(hex, fragment - 1); // MongoDB's fragmentNum counts from 0
        }
        return hex.append(KEY_END).toString();
    }

    /** Writes {@code n} (non-negative) as a KeyString integer (see the class comment). */
    private static StringBuilder appendKeyStringInt(StringBuilder hex, int n) {
        if (n == 0) {
            return hex.append(KS_ZERO);
        }
        long shifted = (long) n << 1;
        int bytes = (64 - Long.numberOfLeadingZeros(shifted) + 7) / 8;
        return appendHex(hex.append(HEX[(KS_ONE_BYTE + bytes - 1) >> 4]).append(HEX[(KS_ONE_BYTE + bytes - 1) & 0xF]), shifted, 2 * bytes);
    }

    /**
     * Reads the KeyString integer at {@code at[0]} of {@code h} (upper case) as {@link #appendKeyStringInt} writes it,
     * moving {@code at[0]} past it.
     *
     * @throws IllegalArgumentException when none is there, or not as written (a fraction, a byte too many); the caller
     *         answers InvalidResumeToken
     */
    private static int readKeyStringInt(String h, int[] at, String hex) {
        if (h.startsWith(KS_ZERO, at[0])) {
            at[0] += 2;
            return 0;
        }
        int type = at[0] + 2 <= h.length() ? Integer.parseInt(h.substring(at[0], at[0] + 2), 16) : -1;
        int bytes = type - KS_ONE_BYTE + 1;
        if (type < KS_ONE_BYTE || type > KS_FOUR_BYTES || at[0] + 2 + 2 * bytes > h.length()) {
            throw notOurs(hex);
        }
        long shifted = Long.parseLong(h.substring(at[0] + 2, at[0] + 2 + 2 * bytes), 16);
        // as written: an even value (no fraction) in the fewest bytes, within a NumberInt
        if ((shifted & 1) != 0 || shifted >>> (8 * (bytes - 1)) == 0 || (shifted >> 1) > Integer.MAX_VALUE) {
            throw notOurs(hex);
        }
        at[0] += 2 + 2 * bytes;
        return (int) (shifted >> 1);
    }

    private static IllegalArgumentException notOurs(String hex) {
        return new IllegalArgumentException("not a resume token of this server: " + hex);
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
        if (!h.startsWith(TIMESTAMP_TYPE) || h.length() < TIME_LENGTH + HIGH_WATER_MARK_REST.length()) {
            throw notOurs(hex);
        }
        try {
            long time = Long.parseUnsignedLong(h.substring(2, TIME_LENGTH), 16);
            if (h.startsWith(HIGH_WATER_MARK_REST, TIME_LENGTH) && h.length() == TIME_LENGTH + HIGH_WATER_MARK_REST.length()) {
                return highWaterMark(time);
            }
            if (!h.startsWith(EVENT_HEAD, TIME_LENGTH)) {
                throw notOurs(hex);
            }
            int[] at = {TIME_LENGTH + EVENT_HEAD.length()};
            int txnOpIndex = readKeyStringInt(h, at, hex);
            boolean fromInvalidate = h.startsWith(TRUE, at[0]);
            if (!fromInvalidate && !h.startsWith(FALSE, at[0]) || !h.startsWith(NO_UUID + EMPTY_IDENTIFIER, at[0] + 2)) {
                throw notOurs(hex);
            }
            at[0] += 2 + NO_UUID.length() + EMPTY_IDENTIFIER.length();
            int fragment = 0;
            if (at[0] + KEY_END.length() < h.length()) {
                int fragmentNum = readKeyStringInt(h, at, hex);
                if (fragmentNum == Integer.MAX_VALUE) {
                    throw notOurs(hex); // the stand-in numbers fragments from 1 up to Integer.MAX_VALUE
                }
                fragment = fragmentNum + 1; // fragmentNum counts from 0
            }
            if (at[0] + KEY_END.length() != h.length() || !h.endsWith(KEY_END) || fromInvalidate && fragment != 0) {
                throw notOurs(hex);
            }
            return new ResumeToken(time, txnOpIndex, fromInvalidate ? Kind.INVALIDATE : Kind.EVENT, fragment);
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
