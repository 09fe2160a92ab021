package dev.tideline.source;

import dev.tideline.standin.AwaitingMemoryBackend;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import java.net.InetSocketAddress;

/** An in-process mongo-java-server and a client on it; close it after the tests. */
final class InProcessMongo implements AutoCloseable {
    final MongoServer server;
    final MongoClient client;

    InProcessMongo() {
        server = new MongoServer(new AwaitingMemoryBackend()); // the stand-in: see its docs for how it follows MongoDB
        server.enableOplog(); // a replica set member, as the source needs
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
