package dev.tideline.source;

import com.mongodb.client.MongoDatabase;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The source's "now" as an operation time, for streams that must start before a backfill.
 * Uses the reply's {@code operationTime} where the server gives one (replica sets), otherwise its
 * {@code localTime}; either way minus a margin, because replaying a few seconds is harmless (every
 * write downstream is idempotent) and missing one write is not.
 */
public final class ServerClock {
    static final int MARGIN_SECONDS = 2;

    private ServerClock() {
    }

    public static BsonTimestamp streamStart(MongoDatabase db) {
        BsonDocument reply = db.runCommand(new BsonDocument("isMaster", new BsonInt32(1)), BsonDocument.class);
        BsonValue opTime = reply.get("operationTime");
        long seconds;
        if (opTime != null && opTime.isTimestamp()) {
            seconds = Integer.toUnsignedLong(opTime.asTimestamp().getTime());
        } else if (reply.get("localTime") != null && reply.get("localTime").isDateTime()) {
            seconds = reply.getDateTime("localTime").getValue() / 1000;
        } else {
            seconds = System.currentTimeMillis() / 1000;
        }
        return new BsonTimestamp((int) Math.max(1, seconds - MARGIN_SECONDS), 0);
    }
}
