package dev.tideline.standin;

import de.bwaldvogel.mongo.exception.MongoServerError;

/**
 * The server errors the stand-in answers, with MongoDB's codes and names
 * (https://github.com/mongodb/mongo/blob/master/src/mongo/base/error_codes.yml; assertion codes without
 * a name are reported by MongoDB as {@code Location<code>}). The driver turns each into the same
 * exception a real server's refusal gives.
 */
public final class ServerErrors {
    public static final int BAD_VALUE = 2;
    public static final int FAILED_TO_PARSE = 9;
    public static final int ILLEGAL_OPERATION = 20;
    public static final int NAMESPACE_NOT_FOUND = 26;
    public static final int NO_MATCHING_DOCUMENT = 47;
    public static final int NAMESPACE_EXISTS = 48;
    public static final int INVALID_OPTIONS = 72;
    /** A read at a point in time older than the server's history (minSnapshotHistoryWindowInSeconds, 300 by default). */
    public static final int SNAPSHOT_TOO_OLD = 239;
    public static final int NOT_IMPLEMENTED = 238;
    public static final int INVALID_NAMESPACE = 73;
    public static final int COMMAND_NOT_SUPPORTED_ON_VIEW = 166;
    public static final int INVALID_RESUME_TOKEN = 260;
    public static final int CHANGE_STREAM_FATAL_ERROR = 280;
    public static final int CHANGE_STREAM_HISTORY_LOST = 286;
    public static final int BSON_OBJECT_TOO_LARGE = 10334;
    public static final int UNRECOGNIZED_PIPELINE_STAGE = 40324;
    public static final int CHANGE_STREAM_NOT_ON_REPLICA_SET = 40573;
    public static final int MULTIPLE_RESUME_OPTIONS = 40674;
    public static final int SPLIT_STAGE_NOT_LAST = 7182802;
    /**
     * {@code $changeStreamSplitLargeEvent} cannot split an event: one top-level field (with the fragment's
     * {@code _id} and {@code splitEvent}) is over the limit alone; MongoDB's uassert in
     * src/mongo/db/pipeline/change_stream_split_event_helpers.cpp ({@code splitChangeEvent}).
     */
    public static final int CHANGE_EVENT_CANNOT_BE_SPLIT = 7182500;

    private ServerErrors() {
    }

    public static MongoServerError error(int code, String codeName, String message) {
        return new MongoServerError(code, codeName, message);
    }

    /** MongoDB on a standalone server (no oplog): "The $changeStream stage is only supported on replica sets". */
    public static MongoServerError changeStreamsNeedAReplicaSet() {
        return error(CHANGE_STREAM_NOT_ON_REPLICA_SET, "Location40573", "The $changeStream stage is only supported on replica sets");
    }

    public static MongoServerError commandNotSupportedOnView(String namespace) {
        return error(COMMAND_NOT_SUPPORTED_ON_VIEW, "CommandNotSupportedOnView", "Namespace " + namespace + " is a view, not a collection");
    }

    public static MongoServerError historyLost() {
        return error(CHANGE_STREAM_HISTORY_LOST, "ChangeStreamHistoryLost",
                "Resume of change stream was not possible, as the resume point may no longer be in the oplog.");
    }

    public static MongoServerError invalidResumeToken(String message) {
        return error(INVALID_RESUME_TOKEN, "InvalidResumeToken", message);
    }

    public static MongoServerError fatal(String message) {
        return error(CHANGE_STREAM_FATAL_ERROR, "ChangeStreamFatalError", message);
    }

    public static MongoServerError badValue(String message) {
        return error(BAD_VALUE, "BadValue", message);
    }

    public static MongoServerError invalidNamespace(String message) {
        return error(INVALID_NAMESPACE, "InvalidNamespace", message);
    }

    public static MongoServerError invalidOptions(String message) {
        return error(INVALID_OPTIONS, "InvalidOptions", message);
    }

    /** MongoDB's answer to a read at a time whose versions it no longer keeps. */
    public static MongoServerError snapshotTooOld(de.bwaldvogel.mongo.bson.BsonTimestamp at, String why) {
        return error(SNAPSHOT_TOO_OLD, "SnapshotTooOld", "Read timestamp " + at + " is older than the oldest available timestamp: " + why);
    }
}
