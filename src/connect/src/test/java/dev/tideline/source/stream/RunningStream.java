package dev.tideline.source.stream;

import com.mongodb.client.MongoDatabase;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;

/**
 * A test's stand-in (a replica set on {@code backend}) and one database's stream (or the deployment's) on it, running on its own thread and
 * reporting to {@link #out}; closing stops the stream and the stand-in.
 */
final class RunningStream implements AutoCloseable {
    final MongoFixture mongo;
    final MongoDatabase db;
    final DatabaseStreamTest.Recorder out;
    final DatabaseStream stream;
    private final Thread thread;

    RunningStream(AwaitingMemoryBackend backend, String database) {
        this(backend, database, false);
    }

    /**
     * @param deployment the deployment's stream ({@code client.watch()}) instead of {@code database}'s; {@link #db}
     *                   and the handles {@link #out} names by collection alone are still {@code database}'s
     */
    RunningStream(AwaitingMemoryBackend backend, String database, boolean deployment) {
        mongo = MongoFixture.inProcess(backend, true);
        db = mongo.client().getDatabase(database);
        out = new DatabaseStreamTest.Recorder(database);
        DatabaseStream.Settings settings = new DatabaseStream.Settings(100, 200, 0, true, LargeEventPolicy.PARK, false);
        stream = deployment ? DatabaseStream.deployment(mongo.client(), settings, out) : new DatabaseStream(database, db, settings, out);
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
