package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;

/** The in-process stand-in (a replica set, as the source needs: see its docs) and a client on it; close it after the tests. */
public final class InProcessMongo implements AutoCloseable {
    public final AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
    private final MongoFixture mongo = MongoFixture.inProcess(backend, true);
    public final MongoClient client = mongo.client();

    public MongoDatabase db(String name) {
        return client.getDatabase(name);
    }

    @Override
    public void close() {
        mongo.close();
    }
}
