package dev.tideline.source.capture;

import java.util.OptionalInt;
import org.bson.BsonDocument;

/**
 * Tells the resume token of a {@code $changeStreamSplitLargeEvent} fragment from an event's. Pure.
 *
 * <p>A fragment's token is its event's token with a zero-based {@code fragmentNum} after the event identifier
 * (https://jira.mongodb.org/browse/SERVER-71825; SERVER-107526: "the resume token of a fragment is the resume token of
 * the original large event suffixed with a 'fragmentNum' field"), which only version 2 tokens carry
 * ({@code ResumeToken::getData} in the server's src/mongo/db/pipeline/resume_token.cpp). So the token is read field
 * by field ({@link TokenBytes}): a version 2 event token (type 128), its {@code txnOpIndex} and {@code fromInvalidate},
 * the collection's UUID or null, the event identifier (a document), then a NumberInt as KeyString writes it and the
 * end byte {@code 04}. Its last bytes alone cannot tell: an identifier may end like a fragment number (an ObjectId
 * {@code _id} ending {@code 00 2C 00} puts {@code 00 2C 00 00 00 04} at an event token's end, which read from the end
 * looks like fragment 0 after an identifier). Anything else (a high-water mark, a version 0 or 1 token, a 3.6 BinData
 * token, an identifier this reader cannot step over: see {@link KeyStringValue}) is not taken for a fragment's.
 *
 * <p>Why it matters: versions before the split-event position ({@link StreamPosition#afterSplitEvent}) stored the
 * last fragment's token as a collection's position, and MongoDB answers 280 to a resume there once the looked-up
 * document changed. Such a position is read as after the split event: opened at its cluster time, the event itself
 * dropped ({@code SourceOffset}).
 */
public final class FragmentToken {
    private static final long VERSION_2 = 2;

    private FragmentToken() {
    }

    /** The zero-based fragment number a fragment's token carries; empty for any other token. */
    public static OptionalInt fragmentNumber(BsonDocument token) {
        TokenBytes key = TokenBytes.afterClusterTime(token);
        if (key == null || key.readInt() != VERSION_2 || key.readInt() != TokenBytes.EVENT_TOKEN || key.readInt() < 0 || key.readBool() < 0) {
            return OptionalInt.empty();
        }
        if (!key.skipNull() && !key.skipValue(TokenBytes.BIN_DATA) || !key.skipValue(TokenBytes.DOCUMENT)) {
            return OptionalInt.empty();
        }
        long fragmentNum = key.readInt();
        return fragmentNum >= 0 && fragmentNum <= Integer.MAX_VALUE && key.atEnd() ? OptionalInt.of((int) fragmentNum) : OptionalInt.empty();
    }

    /** Whether {@code token} is a split event's fragment's. */
    public static boolean isFragment(BsonDocument token) {
        return fragmentNumber(token).isPresent();
    }
}
