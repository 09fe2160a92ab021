package dev.tideline.verify;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The aggregations that let both servers hash a range themselves, so an equal range costs one small
 * reply per side instead of its documents.
 *
 * <p>Per document: {@code $toHashedIndexKey} of the whole document (MongoDB's hashed-index hash, 64
 * bits; documented from MongoDB 7.0, present in late patch releases of older lines too) and
 * {@code $bsonSize} (4.4+). Verify never reads a server's version: it tries the operators and falls
 * back to reading documents where a server refuses them. Per range: the
 * count, the sum of the hashes as a {@code $toDecimal} (exact: a 64-bit sum would turn into a double
 * past 2^63 and lose bits) and the sum of the sizes. Top-level fields verify ignores are projected
 * away first.
 *
 * <p>What the hash cannot see, by MongoDB's hashed-index semantics
 * (https://www.mongodb.com/docs/manual/core/indexes/index-types/index-hashed/): numbers are hashed as
 * 64-bit integers, so a double that changed within the same integer (2.3 to 2.9) or a number that
 * changed type but not value (int64 5 to double 5.0) hashes alike. The size sum catches a type change
 * that changes the size (int32 to int64), not one that keeps it (int64 to double). The client-side
 * comparison ({@code --hashing client}) compares bytes and sees everything.
 *
 * <p>{@code dbHash} is not used: it hashes whole collections only (no ranges), cannot leave out the
 * peer stamp, is not served by mongos, and takes a database lock that holds writes while it runs.
 */
public final class ServerHashing {
    private static final BsonDocument BY_ID = new BsonDocument("_id", new BsonInt32(1));

    private ServerHashing() {
    }

    /**
     * The source side: the next {@code limit} ids after {@code after} (null: from the start), their
     * digest and the last of them, which becomes the range's upper bound.
     */
    public static List<BsonDocument> nextRange(BsonValue after, int limit, Set<String> ignored) {
        List<BsonDocument> p = new ArrayList<>();
        p.add(match(new IdRange(after, null)));
        p.add(new BsonDocument("$sort", BY_ID));
        p.add(new BsonDocument("$limit", new BsonInt32(limit)));
        addExclusion(p, ignored);
        p.add(group(true));
        return p;
    }

    /** The other side: the digest of every document in {@code range}. */
    public static List<BsonDocument> rangeDigest(IdRange range, Set<String> ignored) {
        List<BsonDocument> p = new ArrayList<>();
        p.add(match(range));
        addExclusion(p, ignored);
        p.add(group(false));
        return p;
    }

    /** Each document of {@code range} as {@code {_id, h, b}} in {@code _id} order: narrows a differing range to ids. */
    public static List<BsonDocument> idHashes(IdRange range, Set<String> ignored) {
        List<BsonDocument> p = new ArrayList<>();
        p.add(match(range));
        p.add(new BsonDocument("$sort", BY_ID));
        addExclusion(p, ignored);
        p.add(new BsonDocument("$project", new BsonDocument("h", hash()).append("b", size())));
        return p;
    }

    /** A one-document pipeline using every operator the digests use: fails on a server without them. */
    public static List<BsonDocument> probe(Set<String> ignored) {
        List<BsonDocument> p = new ArrayList<>();
        p.add(new BsonDocument("$limit", new BsonInt32(1)));
        addExclusion(p, ignored);
        p.add(group(true));
        return p;
    }

    /** The digest in a {@code $group} answer; {@link RangeDigest#EMPTY} when the range held nothing (no answer). */
    public static RangeDigest digestOf(BsonDocument answer) {
        if (answer == null) {
            return RangeDigest.EMPTY;
        }
        BsonValue h = answer.get("h");
        BigDecimal sum = h == null || h.isNull() ? BigDecimal.ZERO
                : h.isDecimal128() ? h.asDecimal128().getValue().bigDecimalValue() : BigDecimal.valueOf(h.asNumber().longValue());
        return new RangeDigest(answer.getNumber("n").longValue(), sum, answer.getNumber("b").longValue(), answer.get("last"));
    }

    /** An {@link #idHashes} entry's fingerprint: hash and size. */
    public static String fingerprintOf(BsonDocument idHash) {
        return idHash.getNumber("h").longValue() + "/" + idHash.getNumber("b").longValue();
    }

    private static BsonDocument match(IdRange range) {
        return new BsonDocument("$match", range.filter());
    }

    private static void addExclusion(List<BsonDocument> pipeline, Set<String> ignored) {
        if (!ignored.isEmpty()) {
            BsonDocument exclude = new BsonDocument();
            ignored.stream().sorted().forEach(f -> exclude.append(f, new BsonInt32(0)));
            pipeline.add(new BsonDocument("$project", exclude));
        }
    }

    private static BsonDocument group(boolean withLast) {
        BsonDocument g = new BsonDocument("_id", BsonNull.VALUE)
                .append("n", new BsonDocument("$sum", new BsonInt32(1)))
                .append("h", new BsonDocument("$sum", new BsonDocument("$toDecimal", hash())))
                .append("b", new BsonDocument("$sum", size()));
        if (withLast) {
            g.append("last", new BsonDocument("$last", new BsonString("$_id")));
        }
        return new BsonDocument("$group", g);
    }

    private static BsonDocument hash() {
        return new BsonDocument("$toHashedIndexKey", new BsonString("$$ROOT"));
    }

    private static BsonDocument size() {
        return new BsonDocument("$bsonSize", new BsonString("$$ROOT"));
    }
}
