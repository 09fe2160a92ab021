package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import dev.tideline.event.Namespace;
import dev.tideline.source.stream.StreamRecovery.Remedy;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** Which remedy follows a failure of a database's change stream: a plain function of the failure and the stream's state. */
class StreamRecoveryTest {
    private static final ServerAddress ADDRESS = new ServerAddress("127.0.0.1", 27017);

    private static MongoCommandException refused(int code) {
        return new MongoCommandException(new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(code))
                .append("codeName", new BsonString("Code" + code)).append("errmsg", new BsonString("injected")), ADDRESS);
    }

    private static final RuntimeException TRANSIENT = new MongoSocketReadException("gone", ADDRESS);
    private static final RuntimeException AUTH = new MongoSecurityException(
            MongoCredential.createCredential("u", "admin", "p".toCharArray()), "refused");

    private static Remedy decide(RuntimeException e) {
        return StreamRecovery.decide(e, true, true, false);
    }

    @Test
    void transientFailuresRetryAndLostHistoryIsLookedForPerPosition() {
        assertThat(decide(TRANSIENT)).isEqualTo(Remedy.RETRY);
        assertThat(decide(refused(91))).isEqualTo(Remedy.RETRY); // ShutdownInProgress
        assertThat(decide(refused(43))).isEqualTo(Remedy.RETRY); // CursorNotFound: the cursor is gone, not the history
        assertThat(decide(refused(286))).isEqualTo(Remedy.FIND_LOST_HISTORY);
        assertThat(decide(refused(136))).isEqualTo(Remedy.FIND_LOST_HISTORY);
    }

    @Test
    void whatConcernsTheWholeStreamFailsTheTask() {
        assertThat(decide(AUTH)).isEqualTo(Remedy.FAIL);
        assertThat(decide(refused(13))).isEqualTo(Remedy.FAIL); // Unauthorized
        assertThat(decide(refused(999_999))).isEqualTo(Remedy.FAIL);
        assertThat(decide(new IllegalStateException("a change event has no _id"))).isEqualTo(Remedy.FAIL);
    }

    @Test
    void anEventTooLargeIsReadPastWhateverTheFallbacks() {
        for (boolean split : new boolean[] {true, false}) {
            assertThat(StreamRecovery.decide(refused(10334), split, false, true)).isEqualTo(Remedy.READ_PAST_TOO_LARGE_EVENT);
            // an event the split stage cannot split (one field over 16 MB): MongoDB's own 7182500
            assertThat(StreamRecovery.decide(refused(7182500), split, false, false)).isEqualTo(Remedy.READ_PAST_TOO_LARGE_EVENT);
        }
    }

    @Test
    void anUnknownStageOrFieldFallsBackOnceThenFails() {
        assertThat(StreamRecovery.decide(refused(40324), true, true, false)).isEqualTo(Remedy.WITHOUT_SPLIT_STAGE);
        assertThat(StreamRecovery.decide(refused(40324), false, true, false)).isEqualTo(Remedy.FAIL);
        assertThat(StreamRecovery.decide(refused(40415), true, true, false)).isEqualTo(Remedy.WITHOUT_PRE_IMAGES);
        assertThat(StreamRecovery.decide(refused(40415), true, false, false)).isEqualTo(Remedy.FAIL);
    }

    @Test
    void fragmentsThatDoNotFitTogetherReopenBeforeTheirEventOnlyWhileAssembling() {
        IllegalStateException broken = new IllegalStateException("fragment 2 of 3 missing");
        assertThat(StreamRecovery.decide(broken, true, true, true)).isEqualTo(Remedy.REOPEN_BEFORE_FRAGMENTS);
        assertThat(StreamRecovery.decide(broken, true, true, false)).isEqualTo(Remedy.FAIL);
        assertThat(StreamRecovery.decide(new IllegalArgumentException("x"), true, true, true)).isEqualTo(Remedy.FAIL);
        assertThat(StreamRecovery.decide(TRANSIENT, true, true, true)).isEqualTo(Remedy.RETRY);
    }

    @Test
    void aCollectionsFailureParksItUnlessItIsTransientOrRefusedCredentials() {
        assertThat(decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), new IllegalArgumentException("bad key")))).isEqualTo(Remedy.PARK_COLLECTION);
        assertThat(decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), refused(999_999)))).isEqualTo(Remedy.PARK_COLLECTION);
        // a collection's failure is about its collection, whatever its cause would mean for the stream
        assertThat(decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), refused(286)))).isEqualTo(Remedy.PARK_COLLECTION);
        assertThat(decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), refused(10334)))).isEqualTo(Remedy.PARK_COLLECTION);
        assertThat(StreamRecovery.decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), new IllegalStateException("x")), true, true, true))
                .isEqualTo(Remedy.PARK_COLLECTION);
        assertThat(decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), TRANSIENT))).isEqualTo(Remedy.RETRY);
        assertThat(decide(new StreamOutput.CollectionFailure(new Namespace("db", "a"), AUTH))).isEqualTo(Remedy.FAIL);
    }

    @Test
    void aCollectionsFailureIsReportedAsItsCause() {
        IllegalArgumentException cause = new IllegalArgumentException("bad key");
        assertThat(StreamRecovery.subject(new StreamOutput.CollectionFailure(new Namespace("db", "a"), cause))).isSameAs(cause);
        assertThat(StreamRecovery.subject(TRANSIENT)).isSameAs(TRANSIENT);
    }
}
