package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.bson.Document;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A retried write (same {@code lsid} and {@code txnNumber}) runs once, as retryable-writes.md has the server do it. */
class RetryableWritesTest {
    private final RetryableWrites writes = new RetryableWrites();
    private final AtomicInteger runs = new AtomicInteger();

    @Test
    void theSameTransactionNumberRunsOnceAndAnswersAsTheFirstTime() {
        Document insert = insert(UUID.randomUUID(), 7);
        Document first = writes.once("insert", insert, this::run);
        Document retried = writes.once("insert", insert, this::run);

        assertThat(runs).hasValue(1);
        assertThat(retried).isSameAs(first);
    }

    @Test
    void aNewTransactionNumberOrAnotherSessionRunsAndAnOlderOneIsRefused() {
        UUID session = UUID.randomUUID();
        writes.once("insert", insert(session, 1), this::run);
        writes.once("insert", insert(session, 2), this::run);
        writes.once("insert", insert(UUID.randomUUID(), 2), this::run);
        assertThat(runs).hasValue(3);

        Document tooOld = writes.once("insert", insert(session, 1), this::run);
        assertThat(tooOld.get("code")).isEqualTo(RetryableWrites.TRANSACTION_TOO_OLD);
        assertThat(runs).hasValue(3);
    }

    @Test
    void writesWithoutATransactionNumberAndRefusedWritesAreNotRemembered() {
        Document plain = new Document("insert", "c").append("lsid", new Document("id", UUID.randomUUID()));
        writes.once("insert", plain, this::run);
        writes.once("insert", plain, this::run);
        Document insert = insert(UUID.randomUUID(), 1);
        writes.once("insert", insert, () -> new Document("ok", 0.0).append("code", ReplicaSet.NOT_WRITABLE_PRIMARY));
        writes.once("insert", insert, this::run);

        assertThat(runs).as("both plain writes and the retry of the refused one ran").hasValue(3);
    }

    private Document run() {
        runs.incrementAndGet();
        return new Document("n", 1).append("ok", 1.0);
    }

    private static Document insert(UUID session, long txnNumber) {
        return new Document("insert", "c").append("lsid", new Document("id", session)).append("txnNumber", txnNumber);
    }
}
