package dev.tideline.it.support;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.CursorNotFoundException;
import de.bwaldvogel.mongo.oplog.Oplog;
import de.bwaldvogel.mongo.oplog.OplogCursor;
import io.netty.channel.Channel;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * mongo-java-server's in-memory backend with two changes towards MongoDB: a {@code getMore} on a
 * change stream that finds no new event waits for one, instead of returning an empty batch at once;
 * and an oplog read from the cursor's position ({@link IndexedOplog}), not scanned whole per batch.
 *
 * <p>MongoDB's behaviour (https://www.mongodb.com/docs/manual/reference/command/getMore/): on a
 * tailable awaitData cursor, which change streams are, {@code maxTimeMS} of the getMore is how long
 * the server blocks waiting for new data (drivers send their {@code maxAwaitTimeMS} there); without
 * it the server waits 1 second (https://jira.mongodb.org/browse/SERVER-19665). Without this, an idle
 * change-stream reader spins on the stand-in (see FAKE-MONGO.md).
 *
 * <p>Oplog writes wake the waiters, so a waiting getMore costs no CPU and re-reads the oplog only
 * when something was written. The wait blocks the Netty event loop of that connection; other
 * connections on the same loop wait too, hence {@link MongoFixture} gives the server more loops.
 *
 * <p>Public so that the benchmark can watch what clients ask of it (dev.tideline.bench.FirstReadBackend).
 */
public class AwaitingMemoryBackend extends MemoryBackend {
    /** MongoDB's default await time for tailable awaitData cursors. */
    private static final long DEFAULT_AWAIT_MILLIS = 1000;

    private final Object oplogWritten = new Object();
    private long oplogWrites;

    /**
     * MongoDB writes one document atomically (https://www.mongodb.com/docs/manual/core/write-operations-atomicity/).
     * The stand-in checks and then changes without a lock between (two inserts of one {@code _id} can both pass the
     * duplicate-key check; a conditional replace can match a document another writer changes before it is replaced):
     * its write commands run one at a time here, which is at least as strict.
     */
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findandmodify");
    private static final Set<String> HANDSHAKES = Set.of("ping", "hello", "ismaster");

    private final Object writeLock = new Object();
    private volatile IndexedOplog oplog;

    @Override
    protected Oplog createOplog() {
        oplog = new IndexedOplog(this, getCursorRegistry(), this::signalWrite);
        return oplog;
    }

    /**
     * A replica set member answers commands with the {@code operationTime} of the latest write it
     * knows (https://www.mongodb.com/docs/manual/reference/command/#command-responses); Debezium's
     * MongoDB connector takes its snapshot's stream start from the answer to {@code hello}. Given on
     * the handshake and {@code ping} only, the commands clients read it from.
     */
    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        String name = command.toLowerCase(Locale.ROOT);
        if (WRITES.contains(name)) {
            synchronized (writeLock) {
                return super.handleCommand(channel, databaseName, command, query);
            }
        }
        Document reply = super.handleCommand(channel, databaseName, command, query);
        IndexedOplog o = oplog;
        if (o != null && HANDSHAKES.contains(name) && reply != null && !reply.containsKey("operationTime")) {
            reply.put("operationTime", o.operationTime());
        }
        return reply;
    }

    @Override
    protected Document handleGetMore(String databaseName, String collectionName, Document query) {
        long cursorId = ((Number) query.get("getMore")).longValue();
        if (!isChangeStream(cursorId)) {
            return super.handleGetMore(databaseName, collectionName, query);
        }
        Object maxTime = query.get("maxTimeMS");
        long awaitMillis = maxTime instanceof Number n && n.longValue() > 0 ? n.longValue() : DEFAULT_AWAIT_MILLIS;
        long deadline = System.nanoTime() + awaitMillis * 1_000_000;
        while (true) {
            long writesBefore = writes();
            Document reply = super.handleGetMore(databaseName, collectionName, query);
            long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
            if (!isEmptyBatch(reply) || remainingMillis <= 0) {
                return reply;
            }
            awaitWriteAfter(writesBefore, remainingMillis);
        }
    }

    private boolean isChangeStream(long cursorId) {
        try {
            Cursor cursor = getCursorRegistry().getCursor(cursorId);
            return cursor instanceof OplogCursor;
        } catch (CursorNotFoundException e) {
            return false; // super.handleGetMore answers with the proper CursorNotFound error
        }
    }

    private static boolean isEmptyBatch(Document reply) {
        Object cursor = reply.get("cursor");
        return cursor instanceof Document c && c.get("nextBatch") instanceof List<?> batch && batch.isEmpty();
    }

    private long writes() {
        synchronized (oplogWritten) {
            return oplogWrites;
        }
    }

    private void awaitWriteAfter(long writesBefore, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        synchronized (oplogWritten) {
            long remaining = timeoutMillis;
            while (oplogWrites == writesBefore && remaining > 0) {
                try {
                    oplogWritten.wait(remaining);
                } catch (InterruptedException e) {
                    // The server is shutting down its event loops: answer now with what we have.
                    Thread.currentThread().interrupt();
                    return;
                }
                remaining = (deadline - System.nanoTime()) / 1_000_000;
            }
        }
    }

    private void signalWrite() {
        synchronized (oplogWritten) {
            oplogWrites++;
            oplogWritten.notifyAll();
        }
    }
}
