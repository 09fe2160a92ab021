package dev.tideline.source.capture;

import java.util.OptionalInt;
import org.bson.BsonDocument;

/**
 * The {@code txnOpIndex} a MongoDB change event's resume token carries: the event's index among the operations
 * of its transaction, which all share the commit's cluster time. Pure.
 *
 * <p>A MongoDB 4.2+ token's {@code _data} is the hex of a KeyString of the token's fields in order: the cluster
 * time (type {@code 82} and 8 bytes), the token's version, its type (128 for an event, 0 for a high-water mark),
 * {@code txnOpIndex}, {@code fromInvalidate}, the collection's UUID and the event identifier
 * ({@code ResumeTokenData} in the server's src/mongo/db/pipeline/resume_token.h;
 * https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-change-events). Each of the three integers
 * is a KeyString integer: {@code 29} for 0, else a type byte {@code 2B} to {@code 2E} followed by 1 to 4 bytes
 * holding the value shifted left by one (the low bit flags a fraction), big-endian ({@code CType} in the server's
 * src/mongo/db/storage/key_string/key_string.cpp). E.g. {@code 82…2B02 2C0100 29 6E…}: version 1, an event, index 0.
 * Anything else (a high-water mark, a 3.6 BinData token, another layout) says nothing: empty.
 */
public final class TxnOpIndex {
    private static final int TIMESTAMP_TYPE = 0x82;
    private static final int CLUSTER_TIME_BYTES = 1 + 8;
    private static final int ZERO = 0x29;
    private static final int ONE_BYTE_INT = 0x2B;
    private static final int FOUR_BYTE_INT = 0x2E;
    private static final long EVENT_TOKEN = 128;

    private TxnOpIndex() {
    }

    /** The event's {@code txnOpIndex}, or empty when the token is not an event's MongoDB 4.2+ token. */
    public static OptionalInt of(BsonDocument token) {
        byte[] key = TokenBytes.of(token);
        if (key == null) {
            return OptionalInt.empty();
        }
        if (key.length <= CLUSTER_TIME_BYTES || (key[0] & 0xFF) != TIMESTAMP_TYPE) {
            return OptionalInt.empty();
        }
        int[] at = {CLUSTER_TIME_BYTES};
        long version = readInt(key, at);
        long type = version < 0 ? -1 : readInt(key, at);
        long index = type == EVENT_TOKEN ? readInt(key, at) : -1;
        return index < 0 || index > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) index);
    }

    /** The non-negative KeyString integer at {@code at[0]} (moved past it), or -1 if none starts there. */
    private static long readInt(byte[] key, int[] at) {
        if (at[0] >= key.length) {
            return -1;
        }
        int type = key[at[0]] & 0xFF;
        if (type == ZERO) {
            at[0]++;
            return 0;
        }
        if (type < ONE_BYTE_INT || type > FOUR_BYTE_INT) {
            return -1;
        }
        int width = type - ONE_BYTE_INT + 1;
        if (at[0] + width >= key.length) {
            return -1;
        }
        long shifted = 0;
        for (int i = 1; i <= width; i++) {
            shifted = (shifted << 8) | (key[at[0] + i] & 0xFF);
        }
        if ((shifted & 1) != 0) {
            return -1; // a fraction: not an integer field
        }
        at[0] += width + 1;
        return shifted >> 1;
    }
}
