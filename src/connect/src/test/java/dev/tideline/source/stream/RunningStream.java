package dev.tideline.source.stream;

import com.mongodb.client.MongoDatabase;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;

/**
 * A test's stand-in (a replica set on {@code backend}) and one database's stream on it, running on its own thread and
 * reporting to {@link #out}; closing stops the stream and the stand-in.
 */
final class RunningStream implements AutoCloseable {
    final MongoFixture mongo;
    final MongoDatabase db;
    final DatabaseStreamTest.Recorder out;
    final DatabaseStream stream;
    private final Thread thread;

    RunningStream(AwaitingMemoryBackend backend, String database) {
        mongo = MongoFixture.inProcess(backend, true);
        db = mongo.client().getDatabase(database);
        out = new DatabaseStreamTest.Recorder(database);
        stream = new DatabaseStream(database, db, new DatabaseStream.Settings(100, 200, 0, true, LargeEventPolicy.PARK, false), out);
        thread = new Thread(stream, "stream-test-" + database);
        thread.setDaemon(true);
    }

    /** Starts reading (a test may write what the stream must find first). */
    RunningStream start() {
        thread.start();
        return this;
    }

    @Override
    public void close() throws InterruptedException {
        stream.stop();
        if (thread.isAlive()) {
            thread.join(5_000);
        }
        mongo.close();
    }
}
