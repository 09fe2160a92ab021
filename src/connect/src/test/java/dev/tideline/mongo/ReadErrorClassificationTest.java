package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoCursorNotFoundException;
import com.mongodb.MongoQueryException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.ServerAddress;
import java.io.IOException;
import java.net.SocketTimeoutException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** How the source reads failures of its reads (change streams, copies): the server errors the fault ITs inject. */
class ReadErrorClassificationTest {
    private static final ServerAddress ADDRESS = new ServerAddress("127.0.0.1", 27017);

    private static MongoCommandException refused(int code, String name) {
        return new MongoCommandException(new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(code))
                .append("codeName", new BsonString(name)).append("errmsg", new BsonString("injected")), ADDRESS);
    }

    @Test
    void serverShutdownsAndFailoversAreRetriable() {
        assertThat(MongoErrors.classify(refused(91, "ShutdownInProgress"))).isEqualTo(ErrorClass.RETRIABLE);
        assertThat(MongoErrors.classify(refused(10107, "NotWritablePrimary"))).isEqualTo(ErrorClass.RETRIABLE);
        assertThat(MongoErrors.classify(refused(11600, "InterruptedAtShutdown"))).isEqualTo(ErrorClass.RETRIABLE);
    }

    /**
     * Every resumable code of the driver's change-stream specification (servers before 4.4), and the
     * ones it leaves to the application (Interrupted, CursorKilled, MaxTimeMSExpired): the capture
     * reopens from its own last position, which is always safe.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 63, 150,
            13388, 234, 133, 43, 11601, 237, 50})
    void everyResumableCodeIsRetriable(int code) {
        assertThat(MongoErrors.classify(refused(code, "Code" + code))).isEqualTo(ErrorClass.RETRIABLE);
    }

    @Test
    void theResumableLabelIsRetriableButNotForLostHistory() {
        MongoCommandException labelled = refused(999_999, "SomethingNew");
        labelled.addLabel("ResumableChangeStreamError");
        assertThat(MongoErrors.classify(labelled)).isEqualTo(ErrorClass.RETRIABLE);
        MongoCommandException lost = refused(286, "ChangeStreamHistoryLost");
        lost.addLabel("ResumableChangeStreamError");
        assertThat(MongoErrors.classify(lost)).isEqualTo(ErrorClass.HISTORY_LOST);
    }

    @Test
    void onlyAStandaloneAnswerMeansNoChangeStreamsNeverATimeOut() {
        assertThat(MongoErrors.isStreamUnsupported(refused(40573, "Location40573"))).isTrue();
        assertThat(MongoErrors.isStreamUnsupported(new com.mongodb.MongoException(-1, "Unknown error"))).isFalse();
        assertThat(MongoErrors.isStreamUnsupported(new com.mongodb.MongoTimeoutException("no server"))).isFalse();
        assertThat(MongoErrors.classify(new com.mongodb.MongoTimeoutException("no server"))).isEqualTo(ErrorClass.RETRIABLE);
    }

    @Test
    void anEventTooLargeToSendAndAnUnknownStageOrFieldAreToldApart() {
        assertThat(MongoErrors.isEventTooLarge(refused(10334, "BSONObjectTooLarge"))).isTrue();
        assertThat(MongoErrors.isEventTooLarge(new MongoQueryException(new BsonDocument("code", new BsonInt32(10334))
                .append("errmsg", new BsonString("too large")), ADDRESS))).isTrue();
        assertThat(MongoErrors.isEventTooLarge(refused(286, "ChangeStreamHistoryLost"))).isFalse();
        // what $changeStreamSplitLargeEvent cannot split (one field over 16 MB) is an event too large as well
        assertThat(MongoErrors.isEventTooLarge(refused(7182500, "Location7182500"))).isTrue();
        assertThat(MongoErrors.isEventUnsplittable(refused(7182500, "Location7182500"))).isTrue();
        assertThat(MongoErrors.isEventUnsplittable(refused(10334, "BSONObjectTooLarge"))).isFalse();
        assertThat(MongoErrors.isUnknownPipelineStage(refused(40324, "Location40324"))).isTrue();
        assertThat(MongoErrors.isUnknownField(refused(40415, "Location40415"))).isTrue();
        assertThat(MongoErrors.isUnknownPipelineStage(refused(40415, "Location40415"))).isFalse();
    }

    /**
     * ReadConcernMajorityNotAvailableYet (134: a node without a majority commit point yet, e.g. just elected)
     * and NetworkInterfaceExceededTimeLimit (202: a member's call to another timed out) clear up by themselves.
     */
    @Test
    void aMajorityNotAvailableYetAndAnInternalNetworkTimeLimitAreTransient() {
        assertThat(MongoErrors.classify(refused(134, "ReadConcernMajorityNotAvailableYet"))).isEqualTo(ErrorClass.RETRIABLE);
        assertThat(MongoErrors.classify(refused(202, "NetworkInterfaceExceededTimeLimit"))).isEqualTo(ErrorClass.RETRIABLE);
    }

    @Test
    void aTimeLimitIsToldApartFromOtherTransientErrors() {
        assertThat(MongoErrors.isTimeLimitExceeded(refused(50, "MaxTimeMSExpired"))).isTrue();
        assertThat(MongoErrors.isTimeLimitExceeded(new com.mongodb.MongoExecutionTimeoutException(50, "operation exceeded time limit")))
                .as("as the driver throws it").isTrue();
        assertThat(MongoErrors.isTimeLimitExceeded(refused(91, "ShutdownInProgress"))).isFalse();
    }

    @Test
    void aLostCursorIsReopenedNotResnapshotted() {
        assertThat(MongoErrors.classify(refused(43, "CursorNotFound"))).isEqualTo(ErrorClass.RETRIABLE);
        assertThat(MongoErrors.classify(new MongoCursorNotFoundException(7L, new BsonDocument(), ADDRESS)))
                .isEqualTo(ErrorClass.RETRIABLE);
    }

    @Test
    void lostHistoryIsLostHistory() {
        assertThat(MongoErrors.classify(refused(286, "ChangeStreamHistoryLost"))).isEqualTo(ErrorClass.HISTORY_LOST);
        assertThat(MongoErrors.classify(new MongoQueryException(new BsonDocument("code", new BsonInt32(286))
                .append("errmsg", new BsonString("gone")), ADDRESS))).isEqualTo(ErrorClass.HISTORY_LOST);
        assertThat(MongoErrors.classify(refused(280, "ChangeStreamFatalError"))).isEqualTo(ErrorClass.HISTORY_LOST);
    }

    @Test
    void aReadThatTimedOutOnASilentSocketIsRetriable() {
        IOException cause = new SocketTimeoutException("Read timed out");
        assertThat(MongoErrors.classify(new MongoSocketReadTimeoutException("timeout", ADDRESS, cause)))
                .isEqualTo(ErrorClass.RETRIABLE);
    }
}
