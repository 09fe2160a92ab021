package dev.tideline.verify.mongo;

import com.mongodb.client.MongoCursor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Supplier;

/**
 * Reads a cursor on a thread of its own, ahead of the consumer, so both sides of a comparison are
 * fetched at the same time and the server prepares the next batches while one is compared. Holds at
 * most three batches (two queued, which evens out the servers' uneven answers, one filling; a batch is
 * at most one server reply). A failure of the cursor, opening included, is thrown by
 * {@link #next()}/{@link #hasNext()} on the consumer's thread as a {@link CursorFailure} naming the side,
 * after the documents read before it.
 */
final class Prefetcher<T> implements Cursor<T> {
    private record Batch<T>(List<T> items, boolean last, RuntimeException failure) {
    }

    private final BlockingQueue<Batch<T>> ready = new ArrayBlockingQueue<>(2);
    private final String side;
    private final Thread reader;
    private volatile boolean closed;
    private volatile MongoCursor<T> cursor;
    private Iterator<T> current = List.<T>of().iterator();
    private boolean ended;

    /** @param side the side read, named by the {@link CursorFailure} a failure is thrown as */
    Prefetcher(String side, String threadName, int batchSize, Supplier<MongoCursor<T>> open) {
        this.side = side;
        reader = new Thread(() -> read(batchSize, open), threadName);
        reader.setDaemon(true);
        reader.start();
    }

    private void read(int batchSize, Supplier<MongoCursor<T>> open) {
        try {
            cursor = open.get();
            List<T> batch = new ArrayList<>(batchSize);
            while (!closed && cursor.hasNext()) {
                batch.add(cursor.next());
                // hand over a full batch, or what the server sent before the next round trip
                if (batch.size() >= batchSize || cursor.available() == 0) {
                    ready.put(new Batch<>(batch, false, null));
                    batch = new ArrayList<>(batchSize);
                }
            }
            ready.put(new Batch<>(batch, true, null));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closed while waiting for the consumer
        } catch (RuntimeException e) {
            if (!closed) {
                try {
                    ready.put(new Batch<>(List.of(), true, e));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        } finally {
            MongoCursor<T> c = cursor;
            if (c != null) {
                c.close();
            }
        }
    }

    @Override
    public boolean hasNext() {
        while (!current.hasNext()) {
            if (ended) {
                return false;
            }
            Batch<T> batch;
            try {
                batch = ready.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading " + reader.getName(), e);
            }
            if (batch.failure() != null) {
                ended = true;
                throw new CursorFailure(side, batch.failure());
            }
            current = batch.items().iterator();
            ended = batch.last();
        }
        return true;
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }

    /** Stops reading; the cursor is closed on the reading thread (or by the driver when the thread is stuck in a read). */
    @Override
    public void close() {
        closed = true;
        reader.interrupt();
        ready.clear();
    }
}
