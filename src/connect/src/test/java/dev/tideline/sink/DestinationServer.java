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

    @Override
    public void close() {
        client.close();
        server.shutdownNow();
    }
}
