package dev.tideline.sink;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.net.InetSocketAddress;

/** An in-process mongo-java-server as a sink's destination, with a client on it; close it after each test. */
final class DestinationServer implements AutoCloseable {
    final MongoServer server = new MongoServer(new AwaitingMemoryBackend());
    final String uri;
    final MongoClient client;

    DestinationServer() {
        InetSocketAddress a = server.bind();
        uri = "mongodb://" + a.getHostString() + ":" + a.getPort();
        client = MongoClients.create(uri);
    }

    /** A batch applier writing to database {@code dest} on this server, with these settings besides. */
    BatchApplier applier(java.util.Map<String, String> extra) {
        java.util.Map<String, String> props = new java.util.HashMap<>(java.util.Map.of("mongodb.uri", uri, "database", "dest"));
        props.putAll(extra);
        return BatchApplier.create(new dev.tideline.sink.config.SinkConfig(props), client);
    }

    @Override
    public void close() {
        client.close();
        server.shutdownNow();
    }
}
