package dev.tideline.it.support.standin;

import de.bwaldvogel.mongo.bson.BinData;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The subtype of each binary value the stand-in holds. MongoDB keeps a binary value's subtype (generic 0,
 * function 1, old binary 2, UUID 3 and 4, MD5 5, encrypted 6, column 7, sensitive 8, vector 9, user-defined
 * 0x80 to 0xFF: https://bsonspec.org/spec.html, https://www.mongodb.com/docs/manual/reference/bson-types/#binary-data)
 * and returns it as it was written. mongo-java-server's {@code BinData} has no subtype (its decoder refuses
 * every subtype but 0, 3, 4 and 0x80, and its encoder writes 0), and its value classes are final, so the
 * subtype is kept here, beside the value: the server never copies a {@code BinData} (it moves the decoded
 * instance into the stored document, the oplog and every reply), so the instance identifies the value.
 * Values of subtype 0 are not recorded, and an entry goes when its value is collected.
 */
public final class BinarySubtypes {
    public static final byte GENERIC = 0;

    private static final ReferenceQueue<BinData> COLLECTED = new ReferenceQueue<>();
    private static final Map<Key, Byte> SUBTYPES = new ConcurrentHashMap<>();

    private BinarySubtypes() {
    }

    /** A binary value of {@code subtype} holding {@code data} (for subtype 2, with its inner length, as on the wire). */
    public static BinData of(byte subtype, byte[] data) {
        BinData value = new BinData(data);
        if (subtype != GENERIC) {
            expunge();
            SUBTYPES.put(new Key(value, COLLECTED), subtype);
        }
        return value;
    }

    /** The subtype {@code value} was written with: 0 unless it was made by {@link #of} with another one. */
    public static byte subtypeOf(BinData value) {
        Byte subtype = SUBTYPES.get(new Key(value, null));
        return subtype == null ? GENERIC : subtype;
    }

    private static void expunge() {
        for (Reference<? extends BinData> gone = COLLECTED.poll(); gone != null; gone = COLLECTED.poll()) {
            SUBTYPES.remove(gone);
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
