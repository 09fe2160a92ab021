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
