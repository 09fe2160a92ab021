package dev.tideline.verify.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.ServerAddress;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.mongo.BsonOrder;
import dev.tideline.verify.IdRange;
import dev.tideline.verify.RangeDigest;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * A side held in memory that "hashes on the server" with a stand-in hash (the first 64 bits of the
 * exact fingerprint), so the server-hashing walk can be tested where no server offers the operators.
 * Counts the calls each way costs.
 */
final class MemorySide implements Side {
    final TreeMap<BsonValue, RawBsonDocument> docs = new TreeMap<>(BsonOrder.COMPARATOR);
    final AtomicInteger digests = new AtomicInteger();
    final AtomicInteger listings = new AtomicInteger();
    final AtomicInteger scans = new AtomicInteger();
    private final String name;
    /** Digests answered before the next one is refused as by a server without the operator (-1: never). */
    int refuseDigestsAfter = -1;

    MemorySide(String name) {
        this.name = name;
    }

    void put(BsonDocument d) {
        docs.put(d.get("_id"), new RawBsonDocument(EnvelopeCodec.toBytes(d)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String namespace() {
        return "mem." + name;
    }

    @Override
    public Cursor<RawBsonDocument> scan(IdRange range) {
        scans.incrementAndGet();
        return cursor(docs.values().stream().filter(d -> range.contains(d.get("_id"))).toList());
    }

    @Override
    public Map<BsonValue, RawBsonDocument> lookup(List<BsonValue> ids) {
        Map<BsonValue, RawBsonDocument> out = new TreeMap<>(BsonOrder.COMPARATOR);
        ids.forEach(id -> {
            if (docs.containsKey(id)) {
                out.put(id, docs.get(id));
            }
        });
        return out;
    }

    @Override
    public RangeDigest nextRangeDigest(BsonValue after, int limit) {
        List<RawBsonDocument> in = docs.values().stream().filter(d -> new IdRange(after, null).contains(d.get("_id"))).limit(limit).toList();
        return digest(in, true);
    }

    @Override
    public RangeDigest rangeDigest(IdRange range) {
        return digest(docs.values().stream().filter(d -> range.contains(d.get("_id"))).toList(), false);
    }

    @Override
    public void probeServerHashing() {
        if (refuseDigestsAfter == 0) {
            throw refusal();
        }
    }

    @Override
    public Cursor<BsonDocument> idHashes(IdRange range) {
        listings.incrementAndGet();
        List<BsonDocument> out = new ArrayList<>();
        for (RawBsonDocument d : docs.values()) {
            if (range.contains(d.get("_id"))) {
                out.add(new BsonDocument("_id", d.get("_id")).append("h", new BsonInt64(hash(d))).append("b", new BsonInt32(d.getByteBuffer().remaining())));
            }
        }
        return cursor(out);
    }

    private RangeDigest digest(List<RawBsonDocument> in, boolean withLast) {
        if (refuseDigestsAfter >= 0 && digests.get() >= refuseDigestsAfter) {
            throw refusal();
        }
        digests.incrementAndGet();
        if (in.isEmpty()) {
            return RangeDigest.EMPTY;
        }
        BigDecimal sum = BigDecimal.ZERO;
        long bytes = 0;
        for (RawBsonDocument d : in) {
            sum = sum.add(BigDecimal.valueOf(hash(d)));
            bytes += d.getByteBuffer().remaining();
        }
        return new RangeDigest(in.size(), sum, bytes, withLast ? in.get(in.size() - 1).get("_id") : null);
    }

    private static long hash(RawBsonDocument d) {
        return Long.parseUnsignedLong(DocumentComparison.EXACT.fingerprint(d).substring(0, 16), 16);
    }

    private static MongoCommandException refusal() {
        return new MongoCommandException(BsonDocument.parse("{ok: 0, code: 168, codeName: 'InvalidPipelineOperator', "
                + "errmsg: \"Unrecognized expression '$toHashedIndexKey'\"}"), new ServerAddress("memory", 1));
    }

    private static <T> Cursor<T> cursor(List<T> items) {
        Iterator<T> it = items.iterator();
        return new Cursor<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public T next() {
                return it.next();
            }

            @Override
            public void close() {
            }
        };
    }
}
