package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An {@code aggregate} whose pipeline starts with {@code $changeStream}, read as MongoDB reads it
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStream/): what it watches,
 * where it starts, which images it wants, and the stages that follow.
 *
 * @param scope         a collection ({@code aggregate: "<coll>"}), a database ({@code aggregate: 1}) or the
 *                      deployment ({@code aggregate: 1} on {@code admin} with {@code allChangesForCluster: true})
 * @param startAfter    true when the start token came as {@code startAfter} (which may be an invalidate's)
 * @param startToken    {@code resumeAfter}/{@code startAfter}'s token, or null
 * @param startAtTime   {@code startAtOperationTime}'s value, or null
 * @param stages        the stages after {@code $changeStream}, without {@code $changeStreamSplitLargeEvent}
 * @param split         whether the pipeline ends with {@code $changeStreamSplitLargeEvent}
 * @param firstBatch    the aggregate's {@code cursor.batchSize} (MongoDB's default is 101)
 * @param showMigrationEvents {@code showMigrationEvents: true}: the stream also returns what chunk migrations wrote
 *                      ({@code fromMigrate} oplog entries), an internal option MongoDB takes on a shard's own
 *                      members (https://jira.mongodb.org/browse/SERVER-38682); without it they are left out
 */
public record ChangeStreamSpec(Scope scope, String database, String collection, boolean startAfter, ResumeToken startToken,
                               Long startAtTime, FullDocument fullDocument, BeforeChange beforeChange, boolean showExpandedEvents,
                               List<Document> stages, boolean split, int firstBatch,
                               boolean showMigrationEvents) {
    public enum Scope { COLLECTION, DATABASE, CLUSTER }

    /** {@code fullDocument}: the post-image an update event carries. */
    public enum FullDocument { DEFAULT, UPDATE_LOOKUP, WHEN_AVAILABLE, REQUIRED }

    /** {@code fullDocumentBeforeChange}: the pre-image of update, replace and delete events. */
    public enum BeforeChange { OFF, WHEN_AVAILABLE, REQUIRED }

    public static final String SPLIT_STAGE = "$changeStreamSplitLargeEvent";
    private static final int DEFAULT_FIRST_BATCH = 101;
    private static final Set<String> OPTIONS = Set.of("resumeAfter", "startAfter", "startAtOperationTime", "fullDocument",
            "fullDocumentBeforeChange", "allChangesForCluster", "showExpandedEvents", "showSystemEvents", "allowToRunOnConfigDB",
            "showMigrationEvents", "showRawUpdateDescription");

    /** Whether {@code aggregate}'s pipeline opens a change stream. */
    public static boolean isChangeStream(Document aggregate) {
        return aggregate.get("pipeline") instanceof List<?> stages && !stages.isEmpty()
                && stages.get(0) instanceof Document first && first.containsKey("$changeStream");
    }

    /**
     * @param splitSupported whether this server knows {@code $changeStreamSplitLargeEvent} (MongoDB 7.0 and 6.0.9 on)
     * @throws de.bwaldvogel.mongo.exception.MongoServerError with MongoDB's code for what it refuses
     */
    public static ChangeStreamSpec parse(String database, Document aggregate, boolean splitSupported) {
        List<?> pipeline = (List<?>) aggregate.get("pipeline");
        if (!(((Document) pipeline.get(0)).get("$changeStream") instanceof Document options)) {
            throw ServerErrors.error(ServerErrors.FAILED_TO_PARSE, "FailedToParse", "the $changeStream stage takes an object");
        }
        for (String key : options.keySet()) {
            if (!OPTIONS.contains(key)) {
                throw ServerErrors.error(40415, "Location40415", "BSON field '$changeStream." + key + "' is an unknown field.");
            }
        }
        boolean cluster = Boolean.TRUE.equals(options.get("allChangesForCluster"));
        Object target = aggregate.get("aggregate");
        Scope scope = scope(database, target, cluster);
        String collection = scope == Scope.COLLECTION ? (String) target : null;

        int resumeOptions = (options.containsKey("resumeAfter") ? 1 : 0) + (options.containsKey("startAfter") ? 1 : 0)
                + (options.containsKey("startAtOperationTime") ? 1 : 0);
        if (resumeOptions > 1) {
            throw ServerErrors.error(ServerErrors.MULTIPLE_RESUME_OPTIONS, "Location40674",
                    "Only one type of resume option is allowed, but multiple were found.");
        }
        boolean startAfter = options.containsKey("startAfter");
        Object token = startAfter ? options.get("startAfter") : options.get("resumeAfter");
        ResumeToken startToken = null;
        if (token != null) {
            try {
                startToken = ResumeToken.parse(token);
            } catch (IllegalArgumentException e) {
                throw ServerErrors.invalidResumeToken(e.getMessage());
            }
        }
        Long startAtTime = null;
        if (options.get("startAtOperationTime") instanceof BsonTimestamp ts) {
            startAtTime = ts.getValue();
        } else if (options.containsKey("startAtOperationTime")) {
            throw ServerErrors.error(14, "TypeMismatch", "startAtOperationTime takes a Timestamp");
        }

        List<Document> stages = new ArrayList<>();
        boolean split = false;
        for (int i = 1; i < pipeline.size(); i++) {
            Document stage = (Document) pipeline.get(i);
            if (stage.containsKey(SPLIT_STAGE)) {
                if (!splitSupported) {
                    throw ServerErrors.error(ServerErrors.UNRECOGNIZED_PIPELINE_STAGE, "Location40324",
                            "Unrecognized pipeline stage name: '" + SPLIT_STAGE + "'");
                }
                if (i != pipeline.size() - 1) {
                    throw ServerErrors.error(ServerErrors.SPLIT_STAGE_NOT_LAST, "Location7182802",
                            SPLIT_STAGE + " must be the last stage in the pipeline");
                }
                split = true;
            } else {
                stages.add(stage);
            }
        }
        if (startToken != null && startToken.isFragment() && !split) {
            // MongoDB: resuming from a fragment's token needs the stage that makes fragments
            throw ServerErrors.fatal("Attempting to resume a change stream from a split event fragment without "
                    + SPLIT_STAGE + " in the pipeline");
        }
        int firstBatch = aggregate.get("cursor") instanceof Document cursor && cursor.get("batchSize") instanceof Number n
                ? n.intValue() : DEFAULT_FIRST_BATCH;
        return new ChangeStreamSpec(scope, database, collection, startAfter, startToken, startAtTime,
                fullDocument(options.get("fullDocument")), beforeChange(options.get("fullDocumentBeforeChange")),
                Boolean.TRUE.equals(options.get("showExpandedEvents")), List.copyOf(stages), split, firstBatch,
                Boolean.TRUE.equals(options.get("showMigrationEvents")));
    }

    private static Scope scope(String database, Object target, boolean cluster) {
        if (cluster) {
            if (!"admin".equals(database) || !(target instanceof Number)) {
                throw ServerErrors.invalidOptions("A $changeStream with 'allChangesForCluster:true' may only be opened on the "
                        + "'admin' database, and with no collection name");
            }
            return Scope.CLUSTER;
        }
        if (Namespaces.INTERNAL_DATABASES.contains(database)) {
            throw ServerErrors.invalidNamespace("$changeStream may not be opened on the internal " + database + " database");
        }
        if (target instanceof Number) {
            return Scope.DATABASE;
        }
        if (target instanceof String coll) {
            if (Namespaces.isSystem(coll)) {
                throw ServerErrors.invalidNamespace("$changeStream may not be opened on the internal " + database + "." + coll
                        + " collection");
            }
            return Scope.COLLECTION;
        }
        throw ServerErrors.error(ServerErrors.FAILED_TO_PARSE, "FailedToParse", "aggregate takes a collection name or 1");
    }

    private static FullDocument fullDocument(Object value) {
        if (value == null) {
            return FullDocument.DEFAULT;
        }
        return switch (String.valueOf(value)) {
            case "default" -> FullDocument.DEFAULT;
            case "updateLookup" -> FullDocument.UPDATE_LOOKUP;
            case "whenAvailable" -> FullDocument.WHEN_AVAILABLE;
            case "required" -> FullDocument.REQUIRED;
            default -> throw ServerErrors.badValue("unrecognized value for fullDocument: '" + value + "'");
        };
    }

    private static BeforeChange beforeChange(Object value) {
        if (value == null) {
            return BeforeChange.OFF;
        }
        return switch (String.valueOf(value)) {
            case "off" -> BeforeChange.OFF;
            case "whenAvailable" -> BeforeChange.WHEN_AVAILABLE;
            case "required" -> BeforeChange.REQUIRED;
            default -> throw ServerErrors.badValue("unrecognized value for fullDocumentBeforeChange: '" + value + "'");
        };
    }

    /** {@code db.coll} for a collection stream. */
    public String namespace() {
        return database + "." + collection;
    }

    /**
     * Whether a CRUD write to {@code ns} is this stream's. Database and deployment streams leave out
     * system collections, and a deployment stream the admin, config and local databases
     * (https://www.mongodb.com/docs/manual/changeStreams/#watch-a-collection--database--or-deployment).
     */
    public boolean covers(String ns) {
        String db = Namespaces.database(ns);
        String coll = Namespaces.collection(ns);
        return switch (scope) {
            case COLLECTION -> db.equals(database) && coll.equals(collection);
            case DATABASE -> db.equals(database) && !Namespaces.isSystem(coll);
            case CLUSTER -> !Namespaces.INTERNAL_DATABASES.contains(db) && !Namespaces.isSystem(coll);
        };
    }

    /** The {@code ns} of the cursor's replies. */
    public String cursorNamespace() {
        return switch (scope) {
            case COLLECTION -> namespace();
            case DATABASE -> database + ".$cmd.aggregate";
            case CLUSTER -> "admin.$cmd.aggregate";
        };
    }
}
