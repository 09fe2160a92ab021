package dev.tideline.mongo;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.MongoWriteException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoCursorNotFoundException;
import java.util.Set;

/**
 * The one place that decides whether a MongoDB failure is retriable, fatal, or about one record.
 * Decisions are made on server error codes and exception types, never on message text.
 * Codes: https://github.com/mongodb/mongo/blob/master/src/mongo/base/error_codes.yml
 */
public final class MongoErrors {
    public static final int UNAUTHORIZED = 13;
    public static final int AUTHENTICATION_FAILED = 18;
    public static final int HOST_UNREACHABLE = 6;
    public static final int HOST_NOT_FOUND = 7;
    public static final int NETWORK_TIMEOUT = 89;
    public static final int SHUTDOWN_IN_PROGRESS = 91;
    public static final int PRIMARY_STEPPED_DOWN = 189;
    public static final int EXCEEDED_TIME_LIMIT = 262;
    public static final int SOCKET_EXCEPTION = 9001;
    public static final int NOT_WRITABLE_PRIMARY = 10107;
    public static final int INTERRUPTED_AT_SHUTDOWN = 11600;
    public static final int INTERRUPTED_DUE_TO_REPL_STATE_CHANGE = 11602;
    public static final int NOT_PRIMARY_NO_SECONDARY_OK = 13435;
    public static final int NOT_PRIMARY_OR_SECONDARY = 13436;
    public static final int WRITE_CONCERN_FAILED = 64;
    public static final int LOCK_TIMEOUT = 24;
    public static final int WRITE_CONFLICT = 112;
    public static final int STALE_CONFIG = 13388;
    // The rest of the change-stream specification's resumable codes for servers before 4.4
    // (https://github.com/mongodb/specifications/blob/master/source/change-streams/change-streams.md#resumable-error):
    public static final int STALE_SHARD_VERSION = 63;
    public static final int FAILED_TO_SATISFY_READ_PREFERENCE = 133;
    public static final int STALE_EPOCH = 150;
    public static final int RETRY_CHANGE_STREAM = 234;
    /**
     * Not resumable BY THE DRIVER (the specification excludes it from its automatic resume), but the
     * capture reopens from its own last position with back-off, which is always safe: an operator's
     * killOp or a server-side interruption must not stop a capture for good.
     */
    public static final int INTERRUPTED = 11601;
    /** A read that ran into its maxTimeMS: asked again from the last position. */
    public static final int MAX_TIME_MS_EXPIRED = 50;
    /** Excluded from the driver's automatic resume like {@link #INTERRUPTED}; reopened by the capture for the same reason. */
    public static final int CURSOR_KILLED = 237;
    /**
     * ReadConcernMajorityNotAvailableYet: a node that just started (or became primary) has no majority
     * commit point yet, so a change stream (always read concern majority) cannot open for a moment.
     */
    public static final int READ_CONCERN_MAJORITY_NOT_AVAILABLE_YET = 134;
    /** NetworkInterfaceExceededTimeLimit: a router's or a node's own call to another member timed out. */
    public static final int NETWORK_INTERFACE_EXCEEDED_TIME_LIMIT = 202;

    /**
     * The server no longer has the cursor (killed, timed out, a restarted node): the cursor is gone,
     * not the history. MongoDB's change-stream spec lists it as resumable
     * (https://github.com/mongodb/specifications/blob/master/source/change-streams/change-streams.md#resumable-error):
     * reopening from the last token either works or is answered with 286/280, which ARE lost
     * history. Treating 43 itself as lost history copied whole collections again for nothing.
     */
    public static final int CURSOR_NOT_FOUND = 43;
    public static final int CHANGE_STREAM_FATAL_ERROR = 280;
    public static final int CHANGE_STREAM_HISTORY_LOST = 286;
    public static final int CHANGE_STREAM_INVALIDATED = 260;
    public static final int OPLOG_QUERY_MIN_TS_MISSING = 136; // CappedPositionLost
    public static final int CHANGE_STREAM_NOT_SUPPORTED = 40573;
    /**
     * An aggregation stage the server does not know, e.g. {@code $changeStreamSplitLargeEvent} before
     * MongoDB 7.0 / 6.0.9 (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/).
     */
    public static final int UNRECOGNIZED_PIPELINE_STAGE = 40324;
    /**
     * A field the server does not know, e.g. {@code fullDocumentBeforeChange} of {@code $changeStream}
     * before MongoDB 6.0 (IDLUnknownField).
     */
    public static final int UNKNOWN_FIELD = 40415;
    /** A change stream (or another command) refused on a view (https://www.mongodb.com/docs/manual/core/views/). */
    public static final int COMMAND_NOT_SUPPORTED_ON_VIEW = 166;

    public static final int DUPLICATE_KEY = 11000;
    public static final int DOCUMENT_VALIDATION_FAILURE = 121;
    public static final int BSON_OBJECT_TOO_LARGE = 10334;
    /**
     * An event that {@code $changeStreamSplitLargeEvent} cannot split: one of its top-level fields (with
     * the fragment's resume token, which holds the document key) is over 16 MB on its own. MongoDB raises
     * it as uassert 7182500 ("Splitting change event failed: fragment size ... is greater than maximum
     * allowed fragment size"), src/mongo/db/pipeline/change_stream_split_event_helpers.cpp.
     */
    public static final int CHANGE_EVENT_CANNOT_BE_SPLIT = 7182500;
    public static final int BAD_VALUE = 2;
    public static final int IMMUTABLE_FIELD = 66;
    public static final int INVALID_ID_FIELD = 53;
    public static final int DOLLAR_PREFIXED_FIELD_NAME = 52;
    public static final int INVALID_LENGTH = 16;
    public static final int COMMAND_NOT_FOUND = 59;
    /** An aggregation expression or stage this server does not know ("Unrecognized expression '$x'"). */
    public static final int INVALID_PIPELINE_OPERATOR = 168;
    /** An accumulator this server does not know in {@code $group} ("unknown group operator"). */
    public static final int UNKNOWN_GROUP_OPERATOR = 15952;
    /** A query feature the cluster's featureCompatibilityVersion does not allow yet. */
    public static final int QUERY_FEATURE_NOT_ALLOWED = 224;
    /** An operator outside the Stable API the client declared with {@code apiStrict: true}. */
    public static final int API_STRICT_ERROR = 323;

    // Write side (the sink). Write concern: https://www.mongodb.com/docs/manual/reference/write-concern/
    /** The deployment can never satisfy the write concern asked for (e.g. w: 3 on a one-member replica set). */
    public static final int UNSATISFIABLE_WRITE_CONCERN = 100;
    /** The write concern names a mode (a w: tag set) the replica set configuration does not define. */
    public static final int UNKNOWN_REPL_WRITE_CONCERN = 79;
    /** Write-concern failures that no retry can cure: the setting, not the moment, is wrong. */
    private static final Set<Integer> PERMANENT_WRITE_CONCERN_CODES = Set.of(UNSATISFIABLE_WRITE_CONCERN,
            UNKNOWN_REPL_WRITE_CONCERN);

    private static final Set<Integer> RETRIABLE_CODES = Set.of(HOST_UNREACHABLE, HOST_NOT_FOUND, NETWORK_TIMEOUT,
            SHUTDOWN_IN_PROGRESS, PRIMARY_STEPPED_DOWN, EXCEEDED_TIME_LIMIT, SOCKET_EXCEPTION, NOT_WRITABLE_PRIMARY,
            INTERRUPTED_AT_SHUTDOWN, INTERRUPTED_DUE_TO_REPL_STATE_CHANGE, NOT_PRIMARY_NO_SECONDARY_OK,
            NOT_PRIMARY_OR_SECONDARY, WRITE_CONCERN_FAILED, LOCK_TIMEOUT, WRITE_CONFLICT, STALE_CONFIG, CURSOR_NOT_FOUND,
            STALE_SHARD_VERSION, FAILED_TO_SATISFY_READ_PREFERENCE, STALE_EPOCH, RETRY_CHANGE_STREAM, INTERRUPTED,
            MAX_TIME_MS_EXPIRED, CURSOR_KILLED, READ_CONCERN_MAJORITY_NOT_AVAILABLE_YET, NETWORK_INTERFACE_EXCEEDED_TIME_LIMIT);
    private static final Set<Integer> HISTORY_LOST_CODES = Set.of(CHANGE_STREAM_FATAL_ERROR,
            CHANGE_STREAM_HISTORY_LOST, CHANGE_STREAM_INVALIDATED, OPLOG_QUERY_MIN_TS_MISSING);
    private static final Set<Integer> PER_RECORD_CODES = Set.of(DUPLICATE_KEY, DOCUMENT_VALIDATION_FAILURE,
            BSON_OBJECT_TOO_LARGE, BAD_VALUE, IMMUTABLE_FIELD, INVALID_ID_FIELD, DOLLAR_PREFIXED_FIELD_NAME, INVALID_LENGTH);
    private static final Set<Integer> UNREACHABLE_CODES = Set.of(HOST_UNREACHABLE, HOST_NOT_FOUND, NETWORK_TIMEOUT, SOCKET_EXCEPTION);
    private static final Set<Integer> AUTH_CODES = Set.of(UNAUTHORIZED, AUTHENTICATION_FAILED);

    private MongoErrors() {
    }

    /** Classifies a failure of a read, a command or a whole bulk write. */
    public static ErrorClass classify(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            ErrorClass found = classifyOne(c);
            if (found != null) {
                return found;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return ErrorClass.FATAL;
    }

    /**
     * Classifies a Throwable thrown while the sink read, checked, changed or encoded ONE record in memory
     * (decoding, routing, applying a partial update, encoding the document), where no server is involved:
     * what happens there is that record's doing, so it is isolated (PER_RECORD) and the batch goes on.
     * That includes a StackOverflowError (nesting) and an OutOfMemoryError (an allocation the record asked
     * for): each one frame or allocation of this record, unwound by the time it is caught. A server
     * failure keeps its own class; any other Error (a broken install, the JVM itself) is FATAL.
     */
    public static ErrorClass classifyRecordProcessing(Throwable t) {
        if (t instanceof StackOverflowError || t instanceof OutOfMemoryError) {
            return ErrorClass.PER_RECORD;
        }
        if (t instanceof MongoException) {
            return classify(t);
        }
        return t instanceof RuntimeException ? ErrorClass.PER_RECORD : ErrorClass.FATAL;
    }

    /** Classifies the server's refusal of one write inside a bulk write. */
    public static ErrorClass classifyWriteError(int code) {
        if (RETRIABLE_CODES.contains(code)) {
            return ErrorClass.RETRIABLE;
        }
        if (AUTH_CODES.contains(code)) {
            return ErrorClass.AUTH;
        }
        // a write the server refuses for this document only: isolate it, keep the batch
        return ErrorClass.PER_RECORD;
    }

    /**
     * Classifies a write concern error (the write was applied on the primary, the acknowledgement asked
     * for was not given): a timeout or a failover clears up, so retry; a write concern the deployment can
     * never satisfy, or a mode it does not define, does not, so stop and say so.
     */
    public static ErrorClass classifyWriteConcernError(int code) {
        return PERMANENT_WRITE_CONCERN_CODES.contains(code) ? ErrorClass.FATAL : ErrorClass.RETRIABLE;
    }

    /**
     * Whether a failure (anywhere in its cause chain) says the write concern itself is wrong, as a write
     * concern error of a write or as a command's own error (see {@link #classifyWriteConcernError}).
     */
    public static boolean isPermanentWriteConcernFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            int code;
            if (c instanceof MongoWriteConcernException wc) {
                code = wc.getWriteConcernError().getCode();
            } else if (c instanceof MongoBulkWriteException bulk && bulk.getWriteConcernError() != null) {
                code = bulk.getWriteConcernError().getCode();
            } else if (c instanceof MongoException me) {
                code = me.getCode();
            } else {
                continue;
            }
            if (PERMANENT_WRITE_CONCERN_CODES.contains(code)) {
                return true;
            }
        }
        return false;
    }

    private static final Set<Integer> UNSUPPORTED_OPERATOR_CODES = Set.of(INVALID_PIPELINE_OPERATOR, UNKNOWN_GROUP_OPERATOR,
            UNRECOGNIZED_PIPELINE_STAGE, QUERY_FEATURE_NOT_ALLOWED, API_STRICT_ERROR);

    /**
     * Whether an aggregation failed because this server (its version, its featureCompatibilityVersion,
     * or the Stable API the client declared) does not offer an operator the pipeline uses: the caller
     * can take another way to the same answer, instead of failing. Decided by trying the operator.
     */
    public static boolean isUnsupportedOperator(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof MongoCommandException ce && UNSUPPORTED_OPERATOR_CODES.contains(ce.getErrorCode())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a refused write collided with a unique index (11000). Between partitions this can be a
     * transient state: two documents swapped a unique value, and the change that frees the value travels
     * on another partition, so it may not have landed yet. The write is still refused for this record
     * only ({@link #classifyWriteError} says PER_RECORD); the sink retries it before reporting it.
     */
    public static boolean isUniqueIndexConflict(int code) {
        return code == DUPLICATE_KEY;
    }

    // Reads at a point in time: readConcern {level: "snapshot", atClusterTime} outside a transaction (MongoDB 5.0+,
    // https://www.mongodb.com/docs/manual/reference/read-concern-snapshot/).
    /** The time is older than the history the server keeps (minSnapshotHistoryWindowInSeconds). */
    public static final int SNAPSHOT_TOO_OLD = 239;
    /** The server cannot read at that time yet or any more (e.g. a collection created since). */
    public static final int SNAPSHOT_UNAVAILABLE = 246;
    public static final int ILLEGAL_OPERATION = 20;
    public static final int INVALID_OPTIONS = 72;
    public static final int NOT_IMPLEMENTED = 238;

    /** Whether a read at a point in time was refused for that time only: the server keeps no history that old. */
    public static boolean isHistoryTooOld(Throwable t) {
        return t instanceof MongoCommandException ce && (ce.getErrorCode() == SNAPSHOT_TOO_OLD || ce.getErrorCode() == SNAPSHOT_UNAVAILABLE);
    }

    /**
     * Whether a read at a point in time was refused as such: a server before 5.0 (snapshot only inside transactions:
     * InvalidOptions), one without replication (IllegalOperation), or one that does not implement it.
     */
    public static boolean isPointInTimeReadUnsupported(Throwable t) {
        return t instanceof MongoCommandException ce && (ce.getErrorCode() == INVALID_OPTIONS
                || ce.getErrorCode() == ILLEGAL_OPERATION || ce.getErrorCode() == NOT_IMPLEMENTED);
    }

    /** Whether the server does not know the command (CommandNotFound, 59: an older server, or a command a deployment disables). */
    public static boolean isCommandNotFound(Throwable t) {
        return t instanceof MongoCommandException ce && ce.getErrorCode() == COMMAND_NOT_FOUND;
    }

    /**
     * Whether a (retriable) failure means the server could not be reached at all, rather than that it
     * answered with a transient error: health reports the first as {@code down}, the second as {@code degraded}.
     */
    public static boolean isUnreachable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof MongoSocketException || c instanceof MongoTimeoutException) {
                return true;
            }
            if (c instanceof MongoException me && UNREACHABLE_CODES.contains(me.getCode())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether opening a change stream failed because the server cannot serve one at all: a standalone
     * {@code mongod} answers 40573. Nothing else is: a time-out (the server is down), a lost history,
     * a refused login or an unknown failure while probing must never switch a capture to the date scan.
     */
    public static boolean isStreamUnsupported(Throwable t) {
        return classify(t) == ErrorClass.STREAM_UNSUPPORTED;
    }

    /**
     * Whether a change-stream read failed because one event is larger than a BSON document may be
     * (16 MB): BSONObjectTooLarge on the {@code aggregate} or {@code getMore}, not on a write (which
     * {@link #classifyWriteError} isolates as a per-record refusal).
     */
    public static boolean isEventTooLarge(Throwable t) {
        int code = serverCode(t);
        return (code == BSON_OBJECT_TOO_LARGE || code == CHANGE_EVENT_CANNOT_BE_SPLIT) && !(t instanceof MongoWriteException)
                && !(t instanceof MongoBulkWriteException);
    }

    /** Whether a change-stream read failed on an event {@code $changeStreamSplitLargeEvent} cannot split (one field over 16 MB). */
    public static boolean isEventUnsplittable(Throwable t) {
        return serverCode(t) == CHANGE_EVENT_CANNOT_BE_SPLIT;
    }

    /**
     * Whether an operation ran into its time limit (MaxTimeMSExpired, 50): its own {@code maxTimeMS}, or
     * the {@code defaultMaxTimeMS} a MongoDB 8.0 cluster sets for every read. Retriable for a read that
     * goes on from its last position; a caller whose whole answer would take as long again must stop instead.
     */
    public static boolean isTimeLimitExceeded(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            // the driver answers 50 with MongoExecutionTimeoutException, which is not a MongoServerException
            if (c instanceof MongoExecutionTimeoutException || c instanceof MongoException me && me.getCode() == MAX_TIME_MS_EXPIRED) {
                return true;
            }
        }
        return false;
    }

    /** Whether the server refused a pipeline because it does not know one of its stages. */
    public static boolean isUnknownPipelineStage(Throwable t) {
        return serverCode(t) == UNRECOGNIZED_PIPELINE_STAGE;
    }

    /** Whether the server refused a command because it does not know one of its fields. */
    public static boolean isUnknownField(Throwable t) {
        return serverCode(t) == UNKNOWN_FIELD;
    }

    /** The code of the first server error in the cause chain, or 0. */
    private static int serverCode(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof MongoServerException se) {
                return se.getCode();
            }
        }
        return 0;
    }

    private static ErrorClass classifyOne(Throwable t) {
        if (t instanceof MongoSecurityException) {
            return ErrorClass.AUTH;
        }
        if (t instanceof MongoWriteConcernException wc) {
            return classifyWriteConcernError(wc.getWriteConcernError().getCode());
        }
        if (t instanceof MongoSocketException || t instanceof MongoCursorNotFoundException || t instanceof MongoTimeoutException
                || t instanceof MongoNotPrimaryException || t instanceof MongoNodeIsRecoveringException
                || t instanceof MongoInterruptedException) {
            return ErrorClass.RETRIABLE;
        }
        if (t instanceof MongoBulkWriteException bulk) {
            if (bulk.getWriteConcernError() != null) {
                return classifyWriteConcernError(bulk.getWriteConcernError().getCode());
            }
            return bulk.getWriteErrors().isEmpty() ? ErrorClass.FATAL : ErrorClass.PER_RECORD;
        }
        if (t instanceof MongoWriteException we) {
            return classifyWriteError(we.getError().getCode());
        }
        if (t instanceof MongoException me) {
            int code = me.getCode();
            if (me.hasErrorLabel(MongoException.TRANSIENT_TRANSACTION_ERROR_LABEL)
                    || me.hasErrorLabel("RetryableWriteError") || me.hasErrorLabel("ResumableChangeStreamError")) {
                if (!HISTORY_LOST_CODES.contains(code)) {
                    return ErrorClass.RETRIABLE;
                }
            }
            if (AUTH_CODES.contains(code)) {
                return ErrorClass.AUTH;
            }
            if (code == CHANGE_STREAM_NOT_SUPPORTED) {
                return ErrorClass.STREAM_UNSUPPORTED;
            }
            if (HISTORY_LOST_CODES.contains(code)) {
                return ErrorClass.HISTORY_LOST;
            }
            if (RETRIABLE_CODES.contains(code)) {
                return ErrorClass.RETRIABLE;
            }
            if (PER_RECORD_CODES.contains(code) && (t instanceof MongoServerException)) {
                return t instanceof MongoCommandException ? ErrorClass.FATAL : ErrorClass.PER_RECORD;
            }
            return ErrorClass.FATAL;
        }
        return null;
    }
}
