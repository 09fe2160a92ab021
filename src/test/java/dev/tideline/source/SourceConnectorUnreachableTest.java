package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.RetriableException;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** The connector starts without a reachable MongoDB; task configs wait (retriably) until the collections are known. */
class SourceConnectorUnreachableTest {

    private static Map<String, String> config(String uri) {
        return Map.of("mongodb.uri", uri, "mongodb.connect.timeout.ms", "500", "database.include", "shop",
                "collection.discovery.interval.ms", "1000");
    }

    @Test
    void startsWithoutTheServerAndRefusesTaskConfigsRetriablyWithTheReason() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        TidelineSourceConnector connector = new TidelineSourceConnector();
        try {
            connector.start(config("mongodb://127.0.0.1:" + closed + "/"));
            assertThatThrownBy(() -> connector.taskConfigs(2)).isInstanceOf(RetriableException.class)
                    .hasMessageContaining("not known yet").hasMessageContaining("MongoTimeoutException");
        } finally {
            connector.stop();
        }
    }

    @Test
    void aReachableServerGivesTaskConfigsAtOnce() {
        try (InProcessMongo mongo = new InProcessMongo()) {
            mongo.db("shop").getCollection("orders").insertOne(new Document("_id", 1));
            TidelineSourceConnector connector = new TidelineSourceConnector();
            try {
                connector.start(config("mongodb://" + mongo.server.getLocalAddress().getHostString() + ":"
                        + mongo.server.getLocalAddress().getPort() + "/"));
                List<Map<String, String>> tasks = connector.taskConfigs(2);
                assertThat(tasks).hasSize(1);
                assertThat(tasks.get(0).get(TaskCollections.KEY)).contains("shop.orders");
            } finally {
                connector.stop();
            }
        }
    }
}
