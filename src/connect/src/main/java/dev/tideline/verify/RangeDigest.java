package dev.tideline.verify;

import java.math.BigDecimal;
import org.bson.BsonValue;

/**
 * What a server says about one side of a range: how many documents, the exact sum of their hashes and
 * of their sizes, and (for the side that sets the range) its last {@code _id}. Two sides are taken as
 * equal when all three agree; see {@link ServerHashing} for what the hash cannot see.
 *
 * @param lastId the range's last id in {@code _id} order; null when the range is empty
 */
public record RangeDigest(long documents, BigDecimal hashSum, long bytes, BsonValue lastId) {
    public static final RangeDigest EMPTY = new RangeDigest(0, BigDecimal.ZERO, 0, null);

    public boolean sameContentAs(RangeDigest other) {
        return documents == other.documents && hashSum.compareTo(other.hashSum) == 0 && bytes == other.bytes;
    }
}
