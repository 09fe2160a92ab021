package dev.tideline.source;

import com.mongodb.client.MongoCursor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Reads a cursor in batches one batch ahead of its consumer, on a thread of its own: the server
 * prepares and sends batch n+1 while the capture thread turns batch n into records. Read in line, a
 * copy waited for the server and then for its own encoding, one after the other (the capture thread
 * spent about half of a 200,000-document copy in socket reads; see the README's performance notes).
 *
 * <p>At most two batches wait here (one queued, one being filled). A failure of the cursor (opening it
 * included) is thrown by {@link #next()} on the consumer's thread, as it was thrown (so it is classified
 * as if read in line), after the batches read before it. Nothing read ahead counts as handed over
 * until {@code next()} returns it: a consumer that reopens after a failure resumes from what it got.
 *
 * @param <T> the documents read
 */
final class ReadAhead<T> implements AutoCloseable {
    /** How long {@link #close()} waits for the reading thread to end (it ends at once unless blocked in the driver). */
    private static final long CLOSE_WAIT_MS = 1_000;

    /** A cursor that can be closed; {@link #of(MongoCursor)} adapts the driver's. */
    interface Source<T> extends Iterator<T>, AutoCloseable {
        @Override
        void close();
    }

    /** One batch in cursor order; {@code last} when the cursor has nothing after it. */
    record Batch<T>(List<T> items, boolean last) {
    }

    private record Failure(Throwable error) {
    }

    private final BlockingQueue<Object> ready = new ArrayBlockingQueue<>(1);
    private final Supplier<? extends Source<T>> open;
    private final int batchSize;
    private final Thread reader;
    private volatile boolean closed;
    private Throwable failed;
    private boolean ended;

    /**
     * Starts reading at once.
     *
     * @param open      opens the cursor; called on the reading thread, so an error opening it is thrown by {@link #next()}
     * @param batchSize items per batch (at least 1)
     */
    ReadAhead(String threadName, int batchSize, Supplier<? extends Source<T>> open) {
        this(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        }, batchSize, open);
    }

    /** As above, on a thread of {@code threads} (the task's, so it counts them). */
    ReadAhead(java.util.concurrent.ThreadFactory threads, int batchSize, Supplier<? extends Source<T>> open) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, got " + batchSize);
        }
        this.open = open;
        this.batchSize = batchSize;
        this.reader = threads.newThread(this::read);
        this.reader.start();
    }

    static <T> Source<T> of(MongoCursor<T> cursor) {
        return new Source<>() {
            @Override
            public boolean hasNext() {
                return cursor.hasNext();
            }

            @Override
            public T next() {
                return cursor.next();
            }

            @Override
            public void close() {
                cursor.close();
            }
        };
    }

    private void read() {
        Source<T> source = null;
        try {
            source = open.get();
            boolean last = false;
            while (!last && !closed) {
                List<T> items = new ArrayList<>(batchSize);
                while (items.size() < batchSize && source.hasNext()) {
                    items.add(source.next());
                }
                last = items.size() < batchSize || !source.hasNext();
                ready.put(new Batch<>(items, last));
            }
        } catch (InterruptedException e) {
            // closed while waiting to hand a batch over: nobody wants it
        } catch (RuntimeException | Error e) {
            if (!closed) {
                try {
                    ready.put(new Failure(e)); // after the batch read before it, if still queued
                } catch (InterruptedException closing) {
                    // closed meanwhile: nobody wants it
                }
            }
        } finally {
            if (source != null) {
                try {
                    source.close();
                } catch (RuntimeException e) {
                    // a cursor that failed may fail to close too; its connection is discarded by the driver
                }
            }
        }
    }

    /**
     * The next batch in cursor order, waiting for it.
     *
     * @throws IllegalStateException after the last batch was returned
     */
    @SuppressWarnings("unchecked")
    Batch<T> next() throws InterruptedException {
        if (failed != null) {
            throw rethrow(failed);
        }
        if (ended) {
            throw new IllegalStateException("the cursor's last batch was already read");
        }
        Object item;
        while ((item = ready.poll(100, TimeUnit.MILLISECONDS)) == null) {
            if (!reader.isAlive() && ready.isEmpty()) {
                throw new IllegalStateException("the read-ahead thread " + reader.getName() + " ended without a last batch");
            }
        }
        if (item instanceof Failure f) {
            failed = f.error();
            throw rethrow(failed);
        }
        Batch<T> batch = (Batch<T>) item;
        ended = batch.last();
        return batch;
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return (RuntimeException) t;
    }

    /** Stops reading and closes the cursor (on the reading thread, which ends within about a second). */
    @Override
    public void close() {
        closed = true;
        reader.interrupt();
        try {
            reader.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
