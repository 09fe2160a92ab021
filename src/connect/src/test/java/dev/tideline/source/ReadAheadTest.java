package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The read-ahead hands batches over in cursor order, reads while its consumer works, and passes failures on in place. */
class ReadAheadTest {

    /** Integers 1..n; fails with {@code failure} instead of returning item {@code failAt} (0: never). */
    private static final class Counting implements ReadAhead.Source<Integer> {
        final int n;
        final int failAt;
        final AtomicInteger read = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();

        Counting(int n, int failAt) {
            this.n = n;
            this.failAt = failAt;
        }

        @Override
        public boolean hasNext() {
            return read.get() < n;
        }

        @Override
        public Integer next() {
            int i = read.get() + 1;
            if (i == failAt) {
                throw new MongoSocketReadException("connection reset", new ServerAddress());
            }
            read.set(i);
            return i;
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    private static List<Integer> readAll(ReadAhead<Integer> ahead, List<Integer> sizes) throws InterruptedException {
        List<Integer> all = new ArrayList<>();
        ReadAhead.Batch<Integer> b;
        do {
            b = ahead.next();
            sizes.add(b.items().size());
            all.addAll(b.items());
        } while (!b.last());
        return all;
    }

    @Test
    void handsOverEveryItemInOrderInBatchesAndMarksTheLast() throws InterruptedException {
        Counting source = new Counting(2_500, 0);
        List<Integer> sizes = new ArrayList<>();
        try (ReadAhead<Integer> ahead = new ReadAhead<>("t", 1000, () -> source)) {
            List<Integer> all = readAll(ahead, sizes);
            assertThat(all).hasSize(2_500).isSorted().startsWith(1).endsWith(2_500);
            assertThat(sizes).containsExactly(1000, 1000, 500);
            assertThatThrownBy(ahead::next).isInstanceOf(IllegalStateException.class);
        }
        assertThat(source.closed).isTrue();
    }

    @Test
    void aCursorEndingOnABatchBoundaryEndsWithThatBatchAndAnEmptyCursorWithOneEmptyBatch() throws InterruptedException {
        List<Integer> sizes = new ArrayList<>();
        try (ReadAhead<Integer> ahead = new ReadAhead<>("t", 1000, () -> new Counting(2_000, 0))) {
            assertThat(readAll(ahead, sizes)).hasSize(2_000);
        }
        assertThat(sizes).containsExactly(1000, 1000);
        sizes.clear();
        try (ReadAhead<Integer> ahead = new ReadAhead<>("t", 1000, () -> new Counting(0, 0))) {
            assertThat(readAll(ahead, sizes)).isEmpty();
        }
        assertThat(sizes).containsExactly(0);
    }

    @Test
    void readsTheNextBatchWhileTheConsumerWorksOnThisOne() throws InterruptedException {
        Counting source = new Counting(10_000, 0);
        try (ReadAhead<Integer> ahead = new ReadAhead<>("t", 100, () -> source)) {
            assertThat(ahead.next().items()).hasSize(100);
            // the consumer is busy; the reader fills one batch into the queue and one more in hand, then waits
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (source.read.get() < 300 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(source.read.get()).as("read ahead of the consumer, bounded").isEqualTo(300);
            Thread.sleep(100);
            assertThat(source.read.get()).as("no further than two batches").isEqualTo(300);
        }
        assertThat(source.closed).isTrue();
    }

    @Test
    void aFailureComesAfterTheBatchesReadBeforeItAsTheSameException() throws InterruptedException {
        try (ReadAhead<Integer> ahead = new ReadAhead<>("t", 100, () -> new Counting(1_000, 251))) {
            assertThat(ahead.next().items()).startsWith(1).endsWith(100);
            assertThat(ahead.next().items()).startsWith(101).endsWith(200);
            assertThatThrownBy(ahead::next).isInstanceOf(MongoSocketReadException.class).hasMessageContaining("connection reset");
            assertThatThrownBy(ahead::next).as("and again if asked again").isInstanceOf(MongoSocketReadException.class);
        }
    }

    @Test
    void aCursorThatCannotBeOpenedFailsTheFirstNext() {
        try (ReadAhead<Integer> ahead = new ReadAhead<>("t", 100, () -> {
            throw new MongoSocketReadException("refused", new ServerAddress());
        })) {
            assertThatThrownBy(ahead::next).isInstanceOf(MongoSocketReadException.class).hasMessageContaining("refused");
        }
    }

    @Test
    void closeStopsAReaderWaitingToHandOverAndClosesTheCursor() throws InterruptedException {
        CountDownLatch opened = new CountDownLatch(1);
        Counting source = new Counting(1_000_000, 0);
        ReadAhead<Integer> ahead = new ReadAhead<>("read-ahead-close-test", 10, () -> {
            opened.countDown();
            return source;
        });
        assertThat(opened.await(30, TimeUnit.SECONDS)).isTrue();
        ahead.close();
        assertThat(source.closed).isTrue();
        assertThat(source.read.get()).isLessThanOrEqualTo(20);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("read-ahead-close-test"));
    }
}
