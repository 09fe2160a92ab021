package dev.tideline.source.capture;

import java.util.HexFormat;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Reads the KeyString of a MongoDB 4.2+ resume token ({@code {_data: "<hex>"}}) field by field, for the readers of its
 * fields ({@link TxnOpIndex}, {@link FragmentToken}): the one place that knows KeyString. Pure; a reader is used by one
 * thread.
 *
 * <p>The server writes the token's fields in order as a KeyString V1, ascending ({@code ResumeToken::ResumeToken} in
 * src/mongo/db/pipeline/resume_token.cpp): the cluster time (type {@code 82} and 8 bytes), the version, for version 1
 * and up the token type (128 an event, 0 a high-water mark), {@code txnOpIndex}, for version 1 and up
 * {@code fromInvalidate} ({@code 6E}/{@code 6F}), the collection's UUID (BinData; from version 2 null, {@code 14},
 * when the event has none), the event identifier (a document), for version 2 a split event fragment's
 * {@code fragmentNum}, then the end byte {@code 04}. The integers are NumberInts, which KeyString writes as {@code 29}
 * for 0 or a type byte {@code 2B} to {@code 2E} for the number of bytes that hold the value shifted left by one (the
 * low bit flags a fraction), then those bytes big-endian ({@code _appendPreshiftedIntegerPortion} in the server's
 * src/mongo/db/storage/key_string/key_string.cpp). E.g. the insert in MongoDB's manual
 * (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-change-events):
 * {@code 82635019A000000001 2B04 2C0100 29 6E 5A1004<uuid> 46<identifier>00 04}.
 */
final class TokenBytes {
    static final int KEY_END = 0x04;
    static final int NULL = 0x14;
    static final int ZERO = 0x29;
    static final int DOCUMENT = 0x46;
    static final int BIN_DATA = 0x5A;
    static final int FALSE = 0x6E;
    static final int TRUE = 0x6F;
    /** The token type of an event's token (a high-water mark's is 0). */
    static final long EVENT_TOKEN = 128;
    private static final int TIMESTAMP = 0x82;
    private static final int POSITIVE_1_BYTE = 0x2B;
    private static final int POSITIVE_4_BYTES = 0x2E;

    private final byte[] key;
    private int at;

    private TokenBytes(byte[] key) {
        this.key = key;
    }

    /** @return the bytes, or null when the token has no hex {@code _data} (a 3.6 BinData token, another format) */
    static byte[] of(BsonDocument token) {
        BsonValue data = token == null ? null : token.get("_data");
        if (data == null || !data.isString()) {
            return null;
        }
        try {
            return HexFormat.of().parseHex(data.asString().getValue());
        } catch (IllegalArgumentException e) {
            return null; // not hex: not a KeyString token
        }
    }

    /** A reader past the token's cluster time, or null when the token is no 4.2+ KeyString token. */
    static TokenBytes afterClusterTime(BsonDocument token) {
        byte[] key = of(token);
        if (key == null || key.length < 1 + 8 + 1 || (key[0] & 0xFF) != TIMESTAMP) {
            return null;
        }
        TokenBytes reader = new TokenBytes(key);
        reader.at = 1 + 8;
        return reader;
    }

    /**
     * The non-negative NumberInt here, moved past; -1 (not moved) when none is, or not as KeyString writes one: a
     * fraction, a leading zero byte, more than a NumberInt holds.
     */
    long readInt() {
        int type = peek();
        if (type == ZERO) {
            at++;
            return 0;
        }
        int width = type - POSITIVE_1_BYTE + 1;
        if (type < POSITIVE_1_BYTE || type > POSITIVE_4_BYTES || at + width >= key.length || key[at + 1] == 0) {
            return -1;
        }
        long shifted = 0;
        for (int i = 1; i <= width; i++) {
            shifted = (shifted << 8) | (key[at + i] & 0xFF);
        }
        if ((shifted & 1) != 0) {
            return -1; // a fraction: not an integer field
        }
        at += width + 1;
        return shifted >> 1;
    }

    /** The boolean here (1 true, 0 false), moved past; -1 (not moved) when none is. */
    int readBool() {
        int type = peek();
        if (type != FALSE && type != TRUE) {
            return -1;
        }
        at++;
        return type == TRUE ? 1 : 0;
    }

    /** Moves past the null here, as version 2 writes a missing UUID; false (not moved) when none is. */
    boolean skipNull() {
        if (peek() != NULL) {
            return false;
        }
        at++;
        return true;
    }

    /** Moves past the value of KeyString type {@code type} here (see {@link KeyStringValue}); false when unreadable. */
    boolean skipValue(int type) {
        if (peek() != type) {
            return false;
        }
        int end = KeyStringValue.end(key, at);
        if (end < 0) {
            return false;
        }
        at = end;
        return true;
    }

    /** Whether the reader is at the KeyString's end byte, the token's last. */
    boolean atEnd() {
        return at == key.length - 1 && peek() == KEY_END;
    }

    /** The type byte here, or -1 past the end. */
    int peek() {
        return at < key.length ? key[at] & 0xFF : -1;
    }
}
