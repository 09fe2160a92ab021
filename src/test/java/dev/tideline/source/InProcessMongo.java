package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;

/** An in-process mongo-java-server and a client on it; close it after the tests. */
final class InProcessMongo implements AutoCloseable {
    final MongoServer server;
    final MongoClient client;

    InProcessMongo() {
        server = new MongoServer(new MemoryBackend());
        InetSocketAddress address = server.bind();
        client = MongoClients.create("mongodb://" + address.getHostString() + ":" + address.getPort());
    }

    MongoDatabase db(String name) {
        return client.getDatabase(name);
    }

    @Override
    public void close() {
        client.close();
        server.shutdownNow();
    }
}
