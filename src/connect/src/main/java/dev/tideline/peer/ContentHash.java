package dev.tideline.peer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The hash of a document's content, without the peer stamp ({@value PeerStamp#FIELD} at the top level).
 *
 * <p>Canonical form, chosen so that equal documents hash equally whatever BSON encoding carried them
 * (a {@code RawBsonDocument} from the server, a {@code BsonDocument} rebuilt from a record, the same
 * document after a JSON round trip, whose converter may reorder fields):
 * <ul>
 *   <li>fields of every (sub)document are hashed in sorted key order, so field ORDER does not count;</li>
 *   <li>every value is prefixed with its BSON type, so an int32 1, an int64 1 and a double 1.0 differ
 *       (replication keeps types, so a type change is a change);</li>
 *   <li>doubles hash by their bits, except that every NaN hashes alike and -0.0 hashes as 0.0;</li>
 *   <li>array element order counts; lengths are written so that no two structures share a byte stream.</li>
 * </ul>
 * SHA-256, truncated to 128 bits, as 32 hex characters.
 */
public final class ContentHash {
    private ContentHash() {
    }

    public static String of(BsonDocument document) {
        MessageDigest digest = sha256();
        writeDocument(digest, document, true);
        return HexFormat.of().formatHex(digest.digest(), 0, 16);
    }

    private static void writeDocument(MessageDigest d, BsonDocument doc, boolean top) {
        List<String> keys = new ArrayList<>(doc.keySet());
        if (top) {
            keys.remove(PeerStamp.FIELD);
        }
        keys.sort(null);
        d.update((byte) 0x03);
        writeInt(d, keys.size());
        for (String k : keys) {
            writeString(d, k);
            writeValue(d, doc.get(k));
        }
    }

    private static void writeValue(MessageDigest d, BsonValue v) {
        switch (v.getBsonType()) {
            case DOCUMENT -> writeDocument(d, v.asDocument(), false);
            case ARRAY -> {
                BsonArray a = v.asArray();
                d.update((byte) 0x04);
                writeInt(d, a.size());
                for (BsonValue e : a) {
                    writeValue(d, e);
                }
            }
            case DOUBLE -> {
                double x = v.asDouble().getValue();
                long bits = Double.isNaN(x) ? 0x7ff8000000000000L : Double.doubleToLongBits(x == 0.0 ? 0.0 : x);
                d.update((byte) 0x01);
                writeLong(d, bits);
            }
            case STRING -> {
                d.update((byte) 0x02);
                writeString(d, v.asString().getValue());
            }
            case INT32 -> {
                d.update((byte) 0x10);
                writeInt(d, v.asInt32().getValue());
            }
            case INT64 -> {
                d.update((byte) 0x12);
                writeLong(d, v.asInt64().getValue());
            }
            case BOOLEAN -> {
                d.update((byte) 0x08);
                d.update((byte) (v.asBoolean().getValue() ? 1 : 0));
            }
            case NULL -> d.update((byte) 0x0A);
            case DATE_TIME -> {
                d.update((byte) 0x09);
                writeLong(d, v.asDateTime().getValue());
            }
            case OBJECT_ID -> {
                d.update((byte) 0x07);
                d.update(v.asObjectId().getValue().toByteArray());
            }
            case TIMESTAMP -> {
                d.update((byte) 0x11);
                writeLong(d, v.asTimestamp().getValue());
            }
            default -> {
                // the remaining types (binary, decimal128, regex, code, symbol, min/max key...) through
                // their canonical Extended JSON, which is deterministic for a given value
                d.update((byte) v.getBsonType().getValue());
                writeString(d, new BsonDocument("v", v).toJson());
            }
        }
    }

    private static void writeString(MessageDigest d, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeInt(d, b.length);
        d.update(b);
    }

    private static void writeInt(MessageDigest d, int x) {
        d.update(new byte[] {(byte) (x >>> 24), (byte) (x >>> 16), (byte) (x >>> 8), (byte) x});
    }

    private static void writeLong(MessageDigest d, long x) {
        writeInt(d, (int) (x >>> 32));
        writeInt(d, (int) x);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

}
