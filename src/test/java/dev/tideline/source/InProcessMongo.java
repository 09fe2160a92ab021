package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/** An in-process mongo-java-server and a client on it; close it after the tests. */
final class InProcessMongo implements AutoCloseable {
    final MongoServer server;
    final MongoClient client;

    /**
     * The in-memory backend, announcing sessions in its handshake as every MongoDB 3.6+ server does
     * ({@code logicalSessionTimeoutMinutes}, https://www.mongodb.com/docs/manual/reference/command/hello/):
     * without it the driver refuses the causally consistent session a copy reads in.
     */
    static final class SessionsBackend extends MemoryBackend {
        @Override
        public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
            Document reply = super.handleCommand(channel, databaseName, command, query);
            if (reply != null && (command.equalsIgnoreCase("ismaster") || command.equalsIgnoreCase("hello"))) {
                reply.putIfAbsent("logicalSessionTimeoutMinutes", 30);
            }
            return reply;
        }
    }

    InProcessMongo() {
        server = new MongoServer(new SessionsBackend());
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
