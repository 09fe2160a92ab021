package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.SourceConfig;
import dev.tideline.source.stream.DatabaseStream;
import dev.tideline.source.stream.StreamOutput;
import dev.tideline.source.stream.StreamScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The task's change streams ({@link DatabaseStream}), each on its own thread: one per database, opened when
 * the database's first collection joins, or with {@code change.stream.scope=deployment} one for every
 * database ({@link StreamScope#DEPLOYMENT}), opened when the task's first collection joins. A stream hands
 * its batches to the {@link Publisher} and its collections' troubles to each collection
 * ({@link CollectionCapture}); what concerns the whole stream (refused credentials, an unknown error)
 * fails the task here.
 */
final class DatabaseStreams {
    private final SourceConfig config;
    private final MongoClient client;
    private final Publisher publisher;
    private final RecordQueue queue;
    private final SourceTaskMetrics metrics;
    private final TaskThreads threads;
    /** Where a stream's repair signals go (their {@code _id}s), by database. */
    private final BiConsumer<String, List<org.bson.BsonValue>> signals;
    /** How a drop in a stream reaches the destination ({@code drop.policy}). */
    private final DropMarkers drops;
    /** The streams by what they watch: a database's name, or {@link StreamScope#label()} of the deployment. */
    private final Map<String, DatabaseStream> streams = new ConcurrentHashMap<>();
    private final List<Thread> streamThreads = new ArrayList<>();

    DatabaseStreams(SourceConfig config, MongoClient client, Publisher publisher, RecordQueue queue, SourceTaskMetrics metrics,
                    TaskThreads threads, BiConsumer<String, List<org.bson.BsonValue>> signals) {
        this.config = config;
        this.client = client;
        this.publisher = publisher;
        this.queue = queue;
        this.metrics = metrics;
        this.threads = threads;
        this.signals = signals;
        this.drops = new DropMarkers(config.capture().dropPolicy(), config.topics()::markerPartitions);
    }

    /** The streams by what they watch, live (for the task's gauges). */
    Map<String, DatabaseStream> byDatabase() {
        return streams;
    }

    /** The collection joins its database's stream at {@code from}. */
    void join(CollectionCapture c, SourceOffset from) {
        of(c.ns().db()).join(c, c.filter(), from.streamPosition(), from.isAfterCopy());
    }

    /** What the stream that reads {@code db}'s collections watches. */
    private StreamScope scopeOf(String db) {
        return config.capture().streamScope() == CaptureSettings.StreamScope.DEPLOYMENT ? StreamScope.DEPLOYMENT
                : StreamScope.database(db);
    }

    /** How logs and metrics name the stream that reads {@code db}'s collections. */
    String nameOf(String db) {
        return scopeOf(db).label();
    }

    /** The change stream that reads {@code db}'s collections, opened now if it is not yet. */
    synchronized DatabaseStream of(String db) {
        StreamScope scope = scopeOf(db);
        DatabaseStream existing = streams.get(scope.label());
        if (existing != null) {
            return existing;
        }
        CaptureSettings capture = config.capture();
        DatabaseStream.Settings settings = new DatabaseStream.Settings(capture.batchSize(), capture.maxAwaitMs(),
                capture.heartbeatIntervalMs(), capture.tenantField() != null, capture.largeEventPolicy(), config.repair().enabled());
        DatabaseStream s = scope.isDeployment() ? DatabaseStream.deployment(client, settings, new Output(scope))
                : new DatabaseStream(db, client.getDatabase(db), settings, new Output(scope));
        streams.put(scope.label(), s);
        streamThreads.add(threads.start(s, "stream", true));
        return s;
    }

    /** Stops every stream without waiting; a stream blocked handing a batch to a queue nobody polls any more is interrupted. */
    synchronized void stop() {
        streams.values().forEach(DatabaseStream::stop);
        streamThreads.forEach(Thread::interrupt);
    }

    /** Waits until {@code deadline} (epoch ms) for the stream threads to end after {@link #stop()}; whether they all did. */
    boolean awaitStop(long deadline) throws InterruptedException {
        List<Thread> ts;
        synchronized (this) {
            ts = new ArrayList<>(streamThreads);
        }
        for (Thread t : ts) {
            t.join(Math.max(1, deadline - System.currentTimeMillis()));
        }
        return ts.stream().noneMatch(Thread::isAlive);
    }

    int size() {
        return streams.size();
    }

    /** What one stream reports of itself. */
    private final class Output implements StreamOutput {
        private final StreamScope scope;

        Output(StreamScope scope) {
            this.scope = scope;
        }

        @Override
        public void publish(List<Delivery> batch) throws InterruptedException {
            publisher.publish(drops.expand(batch));
        }

        @Override
        public void failed(RuntimeException e) {
            if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                queue.fail(new ConnectException("The change stream of " + scope.label() + " failed: authentication or authorization "
                        + "refused by the source (" + e.getMessage() + "). Check the user and password in mongodb.uri and that the "
                        + "user may open change streams on " + scope.label() + " (" + scope.privilege() + ")"
                        + (scope.isDeployment() ? ", or set " + CaptureSettings.STREAM_SCOPE + "=database" : "") + ".", e));
            } else {
                queue.fail(new ConnectException("The change stream of " + scope.label() + " failed: " + e, e));
            }
        }

        @Override
        public void retrying(RuntimeException e, long delayMs) {
            metrics.streamRetrying(scope.label(), MongoErrors.isUnreachable(e));
        }

        @Override
        public void signals(String db, List<org.bson.BsonValue> ids) {
            signals.accept(db, ids);
        }

        @Override
        public void opened(int collectionCount) {
            metrics.streamOpened(scope.label());
        }
    }
}
