package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.wire.BsonConstants;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the stand-in keeps of BSON values that mongo-java-server's value classes cannot express, so that it
 * returns them as they were written, as MongoDB does (https://bsonspec.org/spec.html,
 * https://www.mongodb.com/docs/manual/reference/bson-types/):
 * <ul>
 *   <li>a binary value's subtype (generic 0, function 1, old binary 2, MD5 5, encrypted 6, column 7, sensitive 8,
 *       vector 9, user-defined 0x80 to 0xFF; UUIDs 3 and 4 have classes of their own). mongo-java-server's
 *       {@code BinData} has none: its decoder refuses every subtype but 0, 3, 4 and 0x80, and its encoder writes 0;</li>
 *   <li>the deprecated types undefined, DBPointer, symbol and JavaScript code with scope, which its decoder turns
 *       into null or refuses. They are held as a {@code BinData} of their bytes as on the wire.</li>
 * </ul>
 * Its value classes are final, so this is kept beside the value: the server never copies a {@code BinData} (the
 * decoded instance moves into the stored document, the oplog and every reply), so the instance identifies the
 * value. Generic binary values are not recorded, and an entry goes when its value is collected.
 */
public final class LosslessValues {
    /** How a held value is written: its BSON type and, for binary data, its subtype. */
    public record Kept(byte type, byte subtype) {
        static final Kept GENERIC_BINARY = new Kept(BsonConstants.TYPE_DATA, BsonConstants.BINARY_SUBTYPE_GENERIC);
    }

    private static final ReferenceQueue<BinData> COLLECTED = new ReferenceQueue<>();
    private static final Map<Key, Kept> KEPT = new ConcurrentHashMap<>();

    private LosslessValues() {
    }

    /** A binary value of {@code subtype} holding {@code data} (for subtype 2, with its inner length, as on the wire). */
    public static BinData binary(byte subtype, byte[] data) {
        return held(new Kept(BsonConstants.TYPE_DATA, subtype), data);
    }

    /** A value of a deprecated {@code type} that mongo-java-server has no class for, as its bytes on the wire. */
    public static BinData deprecated(byte type, byte[] bytes) {
        return held(new Kept(type, (byte) 0), bytes);
    }

    /** How {@code value} was written: generic binary data unless it was made here with another type or subtype. */
    public static Kept of(BinData value) {
        Kept kept = KEPT.get(new Key(value, null));
        return kept == null ? Kept.GENERIC_BINARY : kept;
    }

    private static BinData held(Kept kept, byte[] bytes) {
        BinData value = new BinData(bytes);
        if (!kept.equals(Kept.GENERIC_BINARY)) {
            expunge();
            KEPT.put(new Key(value, COLLECTED), kept);
        }
        return value;
    }

    /** Whether any value held now, in any stand-in of this JVM, was written with BSON {@code type}: a cheap first test. */
    public static boolean holdsAny(byte type) {
        expunge();
        for (Kept k : KEPT.values()) {
            if (k.type() == type) {
                return true;
            }
        }
        return false;
    }

    private static void expunge() {
        for (Reference<? extends BinData> gone = COLLECTED.poll(); gone != null; gone = COLLECTED.poll()) {
            KEPT.remove(gone);
        }
    }

    /** A weak reference compared by the identity of its referent (an entry whose referent is gone equals only itself). */
    private static final class Key extends WeakReference<BinData> {
        private final int hash;

        Key(BinData value, ReferenceQueue<BinData> queue) {
            super(value, queue);
            this.hash = System.identityHashCode(value);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (this == other) {
                return true;
            }
            if (!(other instanceof Key key)) {
                return false;
            }
            BinData value = get();
            return value != null && value == key.get();
        }
    }
}
