package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import java.util.List;

/**
 * A collection created after the sink started reaches the destination within seconds: the source
 * captures it into a new topic, and the sink's {@code topics.regex} subscription sees that topic at its
 * consumer's next metadata refresh, which the sink examples set to 5 s
 * ({@code consumer.override.metadata.max.age.ms}; Kafka's default is 5 minutes). A second sink on the
 * same topics without the override is the control: it has not seen the new topic by then.
 */
class SinkNewCollectionIT {
    private static final String SOURCE_DB = "newcoll_src";
    private static final String PREFIX = "newcoll";
    private static final Duration WITHIN = Duration.ofSeconds(15);

    @Test
    void aCollectionCreatedAfterTheSinkStartedIsAtTheDestinationWithinSeconds() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase src = source.client().getDatabase(SOURCE_DB);
            src.getCollection("first").insertOne(new Document("_id", 1).append("n", "first"));
            Map<String, String> sourceConfig = SourceItSupport.sourceConfig(source.uri(), SOURCE_DB, PREFIX, ValueFormat.BSON, 1);
            sourceConfig.put("collection.discovery.interval.ms", "1000"); // the source's part: list collections every second
            rest.putConnector("newcoll-source", sourceConfig);
            String regex = PREFIX + "\\." + SOURCE_DB + "\\..*";
            try {
                rest.awaitRunning("newcoll-source", 1, Duration.ofSeconds(60));
                // the existing collection's topic exists before the sinks start: both subscribe to it at once
                TopicReader.readUntil(stack.bootstrapServers(), PREFIX + "." + SOURCE_DB + ".first", 1, Duration.ofMinutes(1));
                rest.putConnector("newcoll-sink", sinkConfig(regex, destination.uri(), "newcoll_dst", true));
                rest.putConnector("newcoll-sink-default-age", sinkConfig(regex, destination.uri(), "newcoll_control", false));
                rest.awaitRunning("newcoll-sink", 1, Duration.ofSeconds(60));
                rest.awaitRunning("newcoll-sink-default-age", 1, Duration.ofSeconds(60));
                var first = destination.client().getDatabase("newcoll_dst").getCollection("first");
                var firstControl = destination.client().getDatabase("newcoll_control").getCollection("first");
                await("the existing collection at both destinations", Duration.ofMinutes(2),
                        () -> first.countDocuments() == 1 && firstControl.countDocuments() == 1);
                // both sinks settled: each has joined its group, read the existing topic and committed past its record,
                // so any metadata refresh due to their start (subscription, group join) is behind them
                for (String sink : List.of("newcoll-sink", "newcoll-sink-default-age")) {
                    SinkItSupport.awaitCommittedThroughEnd(stack.bootstrapServers(), "connect-" + sink,
                            List.of(PREFIX + "." + SOURCE_DB + ".first"), Duration.ofMinutes(1));
                }

                long created = System.nanoTime();
                src.getCollection("later").insertOne(new Document("_id", 7).append("n", "created after the sinks started"));
                String topic = PREFIX + "." + SOURCE_DB + ".later";
                TopicReader.readUntil(stack.bootstrapServers(), topic, 1, Duration.ofMinutes(1));
                long inTopic = millisSince(created);
                var later = destination.client().getDatabase("newcoll_dst").getCollection("later");
                await("the new collection's document at the destination", Duration.ofMinutes(2),
                        () -> later.countDocuments(Filters.eq("_id", 7)) == 1);
                long atDestination = millisSince(created);
                long controlCount = destination.client().getDatabase("newcoll_control").getCollection("later").countDocuments();
                System.out.printf("new collection: its first record in the topic after %d ms (source: discovery every 1 s, topic "
                                + "created), at the destination after %d ms (the sink's part: %d ms, metadata refresh every 5 s); "
                                + "the control sink with Kafka's default metadata age (5 min) holds %d of its documents%n",
                        inTopic, atDestination, atDestination - inTopic, controlCount);
                assertThat(Duration.ofMillis(atDestination)).isLessThanOrEqualTo(WITHIN);
                assertThat(controlCount).as("without the override the new topic is not yet subscribed").isZero();
                assertThat(topicExists(stack.bootstrapServers(), topic)).isTrue();
            } finally {
                rest.deleteConnector("newcoll-sink");
                rest.deleteConnector("newcoll-sink-default-age");
                rest.deleteConnector("newcoll-source");
            }
        }
    }

    private static Map<String, String> sinkConfig(String regex, String uri, String database, boolean shortMetadataAge) {
        Map<String, String> c = SinkItSupport.sinkConfig("unused", uri, database, ValueFormat.BSON);
        c.remove("topics");
        c.put("topics.regex", regex);
        if (shortMetadataAge) {
            c.put("consumer.override.metadata.max.age.ms", "5000"); // as in the sink examples of config/
        }
        return c;
    }

    private static long millisSince(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
    }

    private static boolean topicExists(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return admin.listTopics().names().get().contains(topic);
        }
    }
}
