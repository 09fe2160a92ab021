package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.mongo.MongoErrors;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Only a server that cannot serve change streams makes mode=auto fall back to the date scan. */
class StreamSupportTest {

    @Test
    void aStandaloneServerFallsBack() {
        FaultInjectingBackend backend = new FaultInjectingBackend();
        MongoServer server = new MongoServer(backend);
        server.enableOplog();
        try (MongoClient client = client(server.bind())) {
            // what a standalone mongod answers to $changeStream
            backend.failNext("d", Set.of("aggregate"), MongoErrors.CHANGE_STREAM_NOT_SUPPORTED, "Location40573", 1);
            assertThat(new StreamSupport().available(client.getDatabase("d"))).isFalse();
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
            var db = client.getDatabase("d");
            assertThatThrownBy(() -> support.available(db)).isInstanceOf(MongoException.class);
            assertThat(support.available(db)).as("asked again once the error is gone").isTrue();
        } finally {
            server.shutdownNow();
        }
    }

    @Test
    void aServerThatDoesNotAnswerIsNeverTakenForOneWithoutChangeStreams() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        try (MongoClient client = MongoClients.create(com.mongodb.MongoClientSettings.builder()
                .applyConnectionString(new com.mongodb.ConnectionString("mongodb://127.0.0.1:" + closed))
                .applyToClusterSettings(c -> c.serverSelectionTimeout(300, java.util.concurrent.TimeUnit.MILLISECONDS)).build())) {
            StreamSupport support = new StreamSupport();
            assertThatThrownBy(() -> support.available(client.getDatabase("d"))).isInstanceOf(MongoTimeoutException.class);
            assertThat(MongoErrors.isStreamUnsupported(new MongoException(-1, "Unknown error"))).isFalse();
        }
    }

    private static MongoClient client(InetSocketAddress address) {
        return MongoClients.create("mongodb://" + address.getHostString() + ":" + address.getPort());
    }
}
