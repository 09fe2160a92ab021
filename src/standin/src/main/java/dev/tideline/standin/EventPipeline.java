package dev.tideline.standin;

import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What happens to a change event after MongoDB has made it: the stages the client put after
 * {@code $changeStream} ({@code $match}, {@code $project}, ...), then the 16 MiB check
 * (BSONObjectTooLarge, 10334) or, with {@code $changeStreamSplitLargeEvent} last, the split into
 * fragments (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/):
 * top-level fields in order, as many as fit in each fragment, each fragment with its own resume token
 * and {@code splitEvent: {fragment, of}}; a single field too large for a fragment fails the split with MongoDB's
 * own error, 7182500 ("Splitting change event failed: fragment size N is greater than maximum allowed fragment
 * size M", {@code splitChangeEvent} in src/mongo/db/pipeline/change_stream_split_event_helpers.cpp), not 10334.
 *
 * <p>An {@code invalidate} bypasses the client's stages: it always reaches the client and closes the cursor.
 */
final class EventPipeline {
    private final Aggregation stages;
    private final EventMatch match;
    private final Aggregation afterMatch;
    private final boolean split;
    private final long maxEventBytes;

    /**
     * @param stages        the client's stages, or null when there are none
     * @param maxEventBytes the largest event the server returns (MongoDB: 16 MiB)
     */
    EventPipeline(Aggregation stages, boolean split, long maxEventBytes) {
        this(stages, null, null, split, maxEventBytes);
    }

    /**
     * @param match      the client's leading {@code $match}, compiled ({@link EventMatch}), or null
     * @param afterMatch the client's stages after that {@code $match} (null: none), run on the events it matches;
     *                   {@code stages} (all of them) decides the events the compiled match leaves to the generic matcher
     */
    EventPipeline(Aggregation stages, EventMatch match, Aggregation afterMatch, boolean split, long maxEventBytes) {
        this.stages = stages;
        this.match = match;
        this.afterMatch = afterMatch;
        this.split = split;
        this.maxEventBytes = maxEventBytes;
    }

    /** A document for the client, with its resume token and BSON size. */
    record Output(Document document, ResumeToken token, long size) {
    }

    /** The documents the client gets for {@code event} (whose token is {@code resumeToken}): none (filtered), the event, or its fragments. */
    List<Output> apply(Document event, ResumeToken resumeToken) {
        Object token = event.get("_id");
        if ("invalidate".equals(event.get("operationType"))) {
            return List.of(new Output(event, resumeToken, BsonSize.of(event)));
        }
        Document out = event;
        Aggregation run = stages;
        if (match != null) {
            EventMatch.Verdict v = match.test(event);
            if (v == EventMatch.Verdict.NO_MATCH) {
                return List.of();
            }
            if (v == EventMatch.Verdict.MATCH) {
                run = afterMatch;
            }
        }
        if (run != null) {
            List<Document> result = run.runStages(Stream.of(event));
            if (result.isEmpty()) {
                return List.of();
            }
            out = result.get(0);
            if (!Objects.equals(token, out.get("_id"))) {
                throw ServerErrors.fatal("Encountered an event whose _id field, which contains the resume token, was modified "
                        + "by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that "
                        + "point. Only transformations that retain the unmodified _id field are allowed.");
            }
        }
        long bound = BsonSize.atMost(out);
        if (bound <= maxEventBytes) {
            return List.of(new Output(out, resumeToken, bound)); // the bound is enough to fill a batch by
        }
        long size = BsonSize.of(out);
        if (size <= maxEventBytes) {
            return List.of(new Output(out, resumeToken, size));
        }
        if (!split) {
            throw tooLarge(size);
        }
        return fragments(out, resumeToken);
    }

    private List<Output> fragments(Document event, ResumeToken token) {
        // every fragment carries _id and splitEvent; tokens and the two int32 have a fixed size
        long overhead = 5 + BsonSize.element("_id", token.fragment(1).toDocument())
                + BsonSize.element("splitEvent", new Document("fragment", 1).append("of", 1));
        List<Document> parts = new ArrayList<>();
        Document current = new Document();
        long size = overhead;
        for (String key : event.keySet()) {
            if (key.equals("_id")) {
                continue;
            }
            long field = BsonSize.element(key, event.get(key));
            if (overhead + field > maxEventBytes) {
                throw cannotSplit(overhead + field); // a field is never split
            }
            if (size + field > maxEventBytes) {
                parts.add(current);
                current = new Document();
                size = overhead;
            }
            current.append(key, event.get(key));
            size += field;
        }
        parts.add(current);
        List<Output> fragments = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            ResumeToken fragmentToken = token.fragment(i + 1);
            Document fragment = new Document("_id", fragmentToken.toDocument())
                    .append("splitEvent", new Document("fragment", i + 1).append("of", parts.size()));
            fragment.putAll(parts.get(i));
            fragments.add(new Output(fragment, fragmentToken, BsonSize.of(fragment)));
        }
        return fragments;
    }

    private RuntimeException cannotSplit(long fragmentSize) {
        return ServerErrors.error(ServerErrors.CHANGE_EVENT_CANNOT_BE_SPLIT, "Location" + ServerErrors.CHANGE_EVENT_CANNOT_BE_SPLIT,
                "Splitting change event failed: fragment size " + fragmentSize + " is greater than maximum allowed fragment size "
                        + maxEventBytes);
    }

    private RuntimeException tooLarge(long size) {
        return ServerErrors.error(ServerErrors.BSON_OBJECT_TOO_LARGE, "BSONObjectTooLarge", String.format(Locale.ROOT,
                "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d",
                size, size, maxEventBytes));
    }
}
