package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.tideline.it.support.FaultInjectingBackend;
import dev.tideline.mongo.MongoErrors;
import java.net.InetSocketAddress;
import java.util.Set;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** Only a server that cannot serve change streams makes mode=auto fall back to the date scan. */
class StreamSupportTest {

    @Test
    void aServerWithoutOplogFallsBack() {
        MongoServer server = new MongoServer(new MemoryBackend());
        try (MongoClient client = client(server.bind())) {
            assertThat(new StreamSupport().available(client.getDatabase("d").getCollection("c", BsonDocument.class))).isFalse();
        } finally {
            server.shutdownNow();
        }
    }

    @Test
    void lostHistoryWhileProbingIsAnErrorNotAFallback() {
        FaultInjectingBackend backend = new FaultInjectingBackend();
        MongoServer server = new MongoServer(backend);
        server.enableOplog();
        try (MongoClient client = client(server.bind())) {
            backend.failNext("d", Set.of("aggregate"), MongoErrors.CHANGE_STREAM_HISTORY_LOST, "ChangeStreamHistoryLost", 1);
            StreamSupport support = new StreamSupport();
            var coll = client.getDatabase("d").getCollection("c", BsonDocument.class);
            assertThatThrownBy(() -> support.available(coll)).isInstanceOf(MongoException.class);
            assertThat(support.available(coll)).as("asked again once the error is gone").isTrue();
        } finally {
            server.shutdownNow();
        }
    }

    private static MongoClient client(InetSocketAddress address) {
        return MongoClients.create("mongodb://" + address.getHostString() + ":" + address.getPort());
    }
}
