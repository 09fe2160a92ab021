package dev.tideline.source.capture;

import java.util.OptionalInt;
import org.bson.BsonDocument;

/**
 * The {@code txnOpIndex} a MongoDB change event's resume token carries: the event's index among the operations
 * of its transaction, which all share the commit's cluster time. Pure.
 *
 * <p>It follows the cluster time, the token's version and its type (128 for an event) in the token's KeyString
 * ({@link TokenBytes}; {@code ResumeTokenData} in the server's src/mongo/db/pipeline/resume_token.h;
 * https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-change-events). E.g.
 * {@code 82… 2B04 2C0100 29 6E…}: version 2, an event, index 0. Only the fields up to it are read, so any event
 * identifier will do. Anything else (a high-water mark, a version 0 token, which has no type, a 3.6 BinData token,
 * another layout) says nothing: empty.
 */
public final class TxnOpIndex {

    private TxnOpIndex() {
    }

    /** The event's {@code txnOpIndex}, or empty when the token is not an event's MongoDB 4.2+ token. */
    public static OptionalInt of(BsonDocument token) {
        TokenBytes key = TokenBytes.afterClusterTime(token);
        if (key == null) {
            return OptionalInt.empty();
        }
        long version = key.readInt();
        if (version != 1 && version != 2 || key.readInt() != TokenBytes.EVENT_TOKEN) {
            return OptionalInt.empty();
        }
        long index = key.readInt();
        return index < 0 || index > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) index);
    }
}
