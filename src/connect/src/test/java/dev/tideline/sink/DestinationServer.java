package dev.tideline.sink;

import com.mongodb.client.MongoClient;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;

/**
 * The in-process stand-in as a sink's destination, a replica set reached with {@code replicaSet=} as production
 * MongoDB is, with a client on it; close it after each test.
 */
final class DestinationServer implements AutoCloseable {
    private final MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
    final String uri = mongo.uri();
    final MongoClient client = mongo.client();

    /** A batch applier writing to database {@code dest} on this server, with these settings besides. */
    BatchApplier applier(java.util.Map<String, String> extra) {
        java.util.Map<String, String> props = new java.util.HashMap<>(java.util.Map.of("mongodb.uri", uri, "database", "dest"));
        props.putAll(extra);
        return BatchApplier.create(new dev.tideline.sink.config.SinkConfig(props), client);
    }

    @Override
    public void close() {
        mongo.close();
    }
}
