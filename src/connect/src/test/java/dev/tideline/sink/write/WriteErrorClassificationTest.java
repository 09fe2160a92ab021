package dev.tideline.sink.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.bulk.WriteConcernError;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** How the sink reads failures of bulk writes: per record, transient, or fatal. */
class WriteErrorClassificationTest {
    private static final ServerAddress ADDRESS = new ServerAddress("127.0.0.1", 27017);

    private static MongoBulkWriteException bulk(List<BulkWriteError> errors, WriteConcernError wce) {
        return new MongoBulkWriteException(BulkWriteResult.unacknowledged(), errors, wce, ADDRESS, Set.of());
    }

    @Test
    void documentRefusalsArePerRecord() {
        for (int code : new int[] {MongoErrors.DUPLICATE_KEY, MongoErrors.DOCUMENT_VALIDATION_FAILURE,
                MongoErrors.BSON_OBJECT_TOO_LARGE, MongoErrors.DOLLAR_PREFIXED_FIELD_NAME}) {
            assertThat(MongoErrors.classifyWriteError(code)).as("code %d", code).isEqualTo(ErrorClass.PER_RECORD);
        }
        assertThat(MongoErrors.classify(bulk(List.of(new BulkWriteError(11000, "E11000 dup", new BsonDocument(), 3)), null)))
                .isEqualTo(ErrorClass.PER_RECORD);
    }

    @Test
    void failoverAndShutdownCodesInsideABulkWriteAreTransient() {
        for (int code : new int[] {MongoErrors.NOT_WRITABLE_PRIMARY, MongoErrors.SHUTDOWN_IN_PROGRESS,
                MongoErrors.WRITE_CONCERN_FAILED, MongoErrors.PRIMARY_STEPPED_DOWN}) {
            assertThat(MongoErrors.classifyWriteError(code)).as("code %d", code).isEqualTo(ErrorClass.RETRIABLE);
        }
        assertThat(MongoErrors.classifyWriteError(MongoErrors.UNAUTHORIZED)).isEqualTo(ErrorClass.AUTH);
    }

    @Test
    void writeConcernErrorOnABulkWriteIsTransient() {
        WriteConcernError wce = new WriteConcernError(64, "WriteConcernFailed", "waiting for replication timed out", new BsonDocument());
        assertThat(MongoErrors.classify(bulk(List.of(), wce))).isEqualTo(ErrorClass.RETRIABLE);
    }

    @Test
    void batchLevelFailuresBecomeRetriableOrExplainedFatalExceptions() {
        RuntimeException network = WriteFailures.translate(new MongoSocketReadException("connection reset", ADDRESS), "writing");
        assertThat(network).isInstanceOf(RetriableException.class).hasMessageContaining("re-delivered");

        RuntimeException auth = WriteFailures.translate(
                new MongoSecurityException(MongoCredential.createCredential("u", "admin", "secret".toCharArray()), "bad auth"), "writing");
        assertThat(auth).isNotInstanceOf(RetriableException.class).isInstanceOf(ConnectException.class)
                .hasMessageContaining("credentials").hasMessageNotContaining("secret");

        RuntimeException other = WriteFailures.translate(new com.mongodb.MongoCommandException(
                BsonDocument.parse("{ok: 0, code: 8000, errmsg: 'atlas says no'}"), ADDRESS), "writing");
        assertThat(other).isNotInstanceOf(RetriableException.class).hasMessageContaining("atlas says no");
    }
    @Test
    void aWriteConcernTheDeploymentCanNeverSatisfyStopsTheTaskWithWhatToFix() {
        for (int code : new int[] {MongoErrors.UNSATISFIABLE_WRITE_CONCERN, MongoErrors.UNKNOWN_REPL_WRITE_CONCERN}) {
            WriteConcernError wce = new WriteConcernError(code, "UnsatisfiableWriteConcern", "Not enough data-bearing nodes",
                    new BsonDocument());
            MongoBulkWriteException e = bulk(List.of(), wce);
            assertThat(MongoErrors.classify(e)).as("code %d", code).isEqualTo(ErrorClass.FATAL);
            RuntimeException translated = WriteFailures.translate(e, "writing 3 changes to dest.orders");
            assertThat(translated).as("code %d", code).isNotInstanceOf(RetriableException.class)
                    .isInstanceOf(ConnectException.class).hasMessageContaining("write concern")
                    .hasMessageContaining("mongodb.uri").hasMessageContaining("dest.orders");

            com.mongodb.MongoWriteConcernException single = new com.mongodb.MongoWriteConcernException(wce, null, ADDRESS, Set.of());
            assertThat(MongoErrors.classify(single)).isEqualTo(ErrorClass.FATAL);
            assertThat(WriteFailures.translate(single, "sweeping")).isNotInstanceOf(RetriableException.class);

            com.mongodb.MongoCommandException command = new com.mongodb.MongoCommandException(
                    BsonDocument.parse("{ok: 0, code: " + code + ", errmsg: 'no such mode'}"), ADDRESS);
            assertThat(MongoErrors.classify(command)).isEqualTo(ErrorClass.FATAL);
            assertThat(MongoErrors.isPermanentWriteConcernFailure(command)).isTrue();
        }
        // a timeout waiting for replication clears up: retried
        WriteConcernError timeout = new WriteConcernError(MongoErrors.WRITE_CONCERN_FAILED, "WriteConcernFailed", "timed out",
                new BsonDocument());
        assertThat(WriteFailures.translate(new com.mongodb.MongoWriteConcernException(timeout, null, ADDRESS, Set.of()), "x"))
                .isInstanceOf(RetriableException.class);
        assertThat(MongoErrors.isPermanentWriteConcernFailure(bulk(List.of(), timeout))).isFalse();
    }

    @Test
    void aDuplicateKeyIsARecordRefusalThatMayClearUp() {
        assertThat(MongoErrors.isUniqueIndexConflict(MongoErrors.DUPLICATE_KEY)).isTrue();
        assertThat(MongoErrors.classifyWriteError(MongoErrors.DUPLICATE_KEY)).isEqualTo(ErrorClass.PER_RECORD);
        for (int code : new int[] {MongoErrors.DOCUMENT_VALIDATION_FAILURE, MongoErrors.BSON_OBJECT_TOO_LARGE,
                MongoErrors.BAD_VALUE, MongoErrors.IMMUTABLE_FIELD}) {
            assertThat(MongoErrors.isUniqueIndexConflict(code)).as("code %d", code).isFalse();
        }
    }
}
