package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import dev.tideline.event.RefusedRecordException;
import org.junit.jupiter.api.Test;

/** What one record's in-memory processing may throw: isolated as that record's, unless it is not the record's doing. */
class RecordProcessingClassificationTest {
    @Test
    void stackAndHeapExhaustionAndRuntimeFailuresAreTheRecords() {
        assertThat(MongoErrors.classifyRecordProcessing(new StackOverflowError())).isEqualTo(ErrorClass.PER_RECORD);
        assertThat(MongoErrors.classifyRecordProcessing(new OutOfMemoryError("Java heap space"))).isEqualTo(ErrorClass.PER_RECORD);
        assertThat(MongoErrors.classifyRecordProcessing(new RefusedRecordException("x"))).isEqualTo(ErrorClass.PER_RECORD);
        assertThat(MongoErrors.classifyRecordProcessing(new ClassCastException())).isEqualTo(ErrorClass.PER_RECORD);
    }

    @Test
    void serverFailuresKeepTheirClassAndOtherErrorsAreFatal() {
        assertThat(MongoErrors.classifyRecordProcessing(new MongoSocketReadException("gone", new ServerAddress())))
                .isEqualTo(ErrorClass.RETRIABLE);
        assertThat(MongoErrors.classifyRecordProcessing(new NoClassDefFoundError("x"))).isEqualTo(ErrorClass.FATAL);
        assertThat(MongoErrors.classifyRecordProcessing(new InternalError())).isEqualTo(ErrorClass.FATAL);
    }
}
