package dev.tideline.source.capture;

import java.util.HexFormat;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** The KeyString bytes of a MongoDB 4.2+ resume token ({@code {_data: "<hex>"}}), for the readers of its fields. Pure. */
final class TokenBytes {
    private TokenBytes() {
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
}
