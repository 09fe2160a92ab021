package dev.tideline.peer.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class LocalChangeBarrierTest {
    private static final PeerChange.DocKey X = new PeerChange.DocKey(Namespace.parse("db.docs"), new BsonString("x"));
    private static final PeerChange.DocKey Y = new PeerChange.DocKey(Namespace.parse("db.docs"), new BsonString("y"));

    private static BsonTimestamp t(int seconds) {
        return new BsonTimestamp(seconds, 1);
    }

    @Test
    void aLocalDeleteHoldsPeerChangesOfThatDocumentUntilItsOwnRecordIsProcessed() {
        LocalChangeBarrier barrier = new LocalChangeBarrier();
        barrier.deletedHere(X, t(10));

        assertThat(barrier.waitingFor(X, null)).isEqualTo(t(10));
        assertThat(barrier.waitingFor(Y, null)).as("other documents do not wait").isNull();

        barrier.ownRecordProcessed(X, t(9)); // an own record of an earlier write
        assertThat(barrier.waitingFor(X, null)).isEqualTo(t(10));

        barrier.ownRecordProcessed(X, t(10)); // the record of the delete itself
        assertThat(barrier.waitingFor(X, null)).isNull();
        assertThat(barrier.waiting()).isZero();
    }

    @Test
    void ownRecordsEarlierInTheSameFoldCountBeforeTheyAreCommitted() {
        LocalChangeBarrier barrier = new LocalChangeBarrier();
        barrier.deletedHere(X, t(10));

        assertThat(barrier.waitingFor(X, t(9))).isEqualTo(t(10));
        assertThat(barrier.waitingFor(X, t(10))).isNull();
        assertThat(barrier.waitingFor(X, t(11))).isNull();
        assertThat(barrier.waiting()).as("nothing is forgotten until the fold is committed").isOne();
    }

    @Test
    void aDeleteWhoseRecordWasAlreadyProcessedHoldsNothing() {
        // the change stream is read after the read of the documents, so it can report a delete whose own record
        // came through Kafka first
        LocalChangeBarrier barrier = new LocalChangeBarrier();
        barrier.ownRecordProcessed(X, t(12));
        barrier.deletedHere(X, t(12));
        barrier.deletedHere(X, t(11));

        assertThat(barrier.waitingFor(X, null)).isNull();
    }

    @Test
    void theLatestOfSeveralLocalDeletesIsWaitedFor() {
        LocalChangeBarrier barrier = new LocalChangeBarrier();
        barrier.deletedHere(X, t(10));
        barrier.deletedHere(X, t(14));
        barrier.deletedHere(X, t(12));

        barrier.ownRecordProcessed(X, t(12));
        assertThat(barrier.waitingFor(X, null)).as("re-inserted and deleted again at 14").isEqualTo(t(14));
        barrier.ownRecordProcessed(X, t(14));
        assertThat(barrier.waitingFor(X, null)).isNull();
    }

    @Test
    void aLocalWriteIsKnownToOwnRecordsOfEarlierEventsUntilItsOwnRecordIsProcessed() {
        LocalChangeBarrier barrier = new LocalChangeBarrier();
        barrier.writtenHere(X, t(10));
        barrier.writtenHere(X, t(20));

        assertThat(barrier.writtenAfter(X, t(10), null)).isEqualTo(t(20));
        assertThat(barrier.writtenAfter(X, t(20), null)).as("nothing written after the record's own event").isNull();
        assertThat(barrier.writtenAfter(Y, t(10), null)).isNull();
        assertThat(barrier.writtenAfter(X, t(10), t(20))).as("the record of 20 earlier in the same fold").isNull();
        assertThat(barrier.waitingFor(X, null)).as("a write holds no peer change").isNull();

        barrier.ownRecordProcessed(X, t(20));
        assertThat(barrier.writtenAfter(X, t(10), null)).isNull();
        barrier.writtenHere(X, t(15));
        assertThat(barrier.writtenAfter(X, t(10), null)).as("its record was processed already").isNull();
    }

    @Test
    void memoryIsBounded() {
        LocalChangeBarrier barrier = new LocalChangeBarrier();
        for (int i = 0; i < LocalChangeBarrier.MEMORY + 10; i++) {
            barrier.deletedHere(new PeerChange.DocKey(Namespace.parse("db.docs"), new BsonString("d" + i)), t(10));
        }
        assertThat(barrier.waiting()).isEqualTo(LocalChangeBarrier.MEMORY);
    }
}
