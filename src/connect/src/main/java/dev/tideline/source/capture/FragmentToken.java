package dev.tideline.source.capture;

import java.util.OptionalInt;
import org.bson.BsonDocument;

/**
 * Tells the resume token of a {@code $changeStreamSplitLargeEvent} fragment from an event's. Pure.
 *
 * <p>A MongoDB 4.2+ token's {@code _data} is the hex of a KeyString: the cluster time, the token's version, type,
 * {@code txnOpIndex}, {@code fromInvalidate}, the collection's UUID and the event identifier (a document), then the
 * KeyString's end byte {@code 04}. A fragment's token is its event's token with a zero-based {@code fragmentNum}
 * appended after the identifier (https://jira.mongodb.org/browse/SERVER-71825; SERVER-107526: "the resume token of a
 * fragment is the resume token of the original large event suffixed with a 'fragmentNum' field"). So an event's
 * token ends with the identifier's end ({@code 00}) and {@code 04}, a fragment's with {@code 00}, a KeyString integer
 * ({@code 29} for 0, {@code 2B} and one byte of n &lt;&lt; 1, {@code 2C} and two) and {@code 04}; a high-water-mark
 * token ends with its {@code fromInvalidate} boolean. Anything else (a 3.6 BinData token, an unreadable one) is not
 * taken for a fragment's.
 *
 * <p>Why it matters: versions before the split-event position ({@link StreamPosition#afterSplitEvent}) stored the
 * last fragment's token as a collection's position, and MongoDB answers 280 to a resume there once the looked-up
 * document changed. Such a position is read as after the split event: opened at its cluster time, the event itself
 * dropped ({@code SourceOffset}).
 */
public final class FragmentToken {
    private static final int CLUSTER_TIME_BYTES = 1 + 8;
    private static final int KEY_END = 0x04;
    private static final int IDENTIFIER_END = 0x00;
    private static final int ZERO = 0x29;
    private static final int ONE_BYTE_INT = 0x2B;
    private static final int TWO_BYTE_INT = 0x2C;

    private FragmentToken() {
    }

    /** The zero-based fragment number a fragment's token carries; empty for any other token. */
    public static OptionalInt fragmentNumber(BsonDocument token) {
        byte[] key = TokenBytes.of(token);
        if (key == null) {
            return OptionalInt.empty();
        }
        int end = key.length - 1;
        if (end <= CLUSTER_TIME_BYTES || (key[end] & 0xFF) != KEY_END) {
            return OptionalInt.empty();
        }
        for (int width = 0; width <= 2; width++) {
            int type = end - 1 - width;
            int identifierEnd = type - 1;
            if (identifierEnd <= CLUSTER_TIME_BYTES || (key[identifierEnd] & 0xFF) != IDENTIFIER_END) {
                continue;
            }
            int typeByte = key[type] & 0xFF;
            if (width == 0 && typeByte == ZERO) {
                return OptionalInt.of(0);
            }
            if (width == 1 && typeByte == ONE_BYTE_INT && (key[end - 1] & 1) == 0) {
                return OptionalInt.of((key[end - 1] & 0xFF) >> 1);
            }
            if (width == 2 && typeByte == TWO_BYTE_INT && (key[end - 1] & 1) == 0) {
                return OptionalInt.of((((key[end - 2] & 0xFF) << 8) | (key[end - 1] & 0xFF)) >> 1);
            }
        }
        return OptionalInt.empty();
    }

    /** Whether {@code token} is a split event's fragment's. */
    public static boolean isFragment(BsonDocument token) {
        return fragmentNumber(token).isPresent();
    }
}
