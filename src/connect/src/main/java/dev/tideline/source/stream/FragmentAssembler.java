package dev.tideline.source.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Puts back together an event that {@code $changeStreamSplitLargeEvent} split into fragments. Pure.
 *
 * <p>MongoDB splits an event over 16 MB by its top-level fields: each fragment carries some of them,
 * its own resume token as {@code _id} and {@code splitEvent: {fragment: n, of: total}}, and the
 * fragments arrive one after the other
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/).
 * The whole event is the union of their fields and carries its FIRST fragment's token as {@code _id}: the
 * stream orders it there ({@link StreamPosition#afterSplitEvent}) but never opens at a fragment's token,
 * since MongoDB splits the event again on resume and answers 280 when the new split differs.
 */
public final class FragmentAssembler {
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private final List<RawBsonDocument> pending = new ArrayList<>();
    private int expectedTotal;

    /**
     * @param fragment the raw fragment and its parsed fields
     * @return the whole event once its last fragment arrived, else null
     * @throws IllegalStateException when fragments arrive out of order: the partial event is dropped, and
     *                               the caller reopens the stream before it
     */
    public RawBsonDocument add(RawBsonDocument fragment, RawChangeEvent parsed) {
        int n = parsed.fragment();
        int total = parsed.fragments();
        if (n < 1 || total < n) {
            reset();
            throw new IllegalStateException("a split event's fragment says it is " + n + " of " + total);
        }
        if (n == 1) {
            if (!pending.isEmpty()) {
                int had = pending.size();
                reset();
                throw new IllegalStateException("a split event began while " + had + " fragment(s) of another were pending");
            }
            expectedTotal = total;
        } else if (pending.size() != n - 1 || total != expectedTotal) {
            int had = pending.size();
            reset();
            throw new IllegalStateException("fragment " + n + " of " + total + " arrived after " + had + " fragment(s) of an event of "
                    + expectedTotal);
        }
        pending.add(fragment);
        if (n < total) {
            return null;
        }
        BsonDocument whole = new BsonDocument();
        BsonValue firstToken = null;
        for (RawBsonDocument part : pending) {
            for (Map.Entry<String, BsonValue> field : part.entrySet()) {
                switch (field.getKey()) {
                    case "_id" -> firstToken = firstToken == null ? field.getValue() : firstToken;
                    case "splitEvent" -> {
                        // the split's bookkeeping, not part of the event
                    }
                    default -> whole.put(field.getKey(), field.getValue());
                }
            }
        }
        reset();
        BsonDocument ordered = new BsonDocument("_id", firstToken);
        ordered.putAll(whole);
        return new RawBsonDocument(ordered, CODEC);
    }

    /** Whether fragments of an event are waiting for the rest (the stream stands inside an event). */
    public boolean inProgress() {
        return !pending.isEmpty();
    }

    /** Forgets a partial event (the stream is reopened before it). */
    public void reset() {
        pending.clear();
        expectedTotal = 0;
    }
}
