package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.RenameCollectionOptions;
import com.mongodb.client.model.Updates;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.standin.MongoFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Drops, renames and the capture filter on the whole pair, source to sink (docs/operations.md, "Drops,
 * renames, dropDatabase"): a captured collection dropped and created again keeps only its new documents
 * at the destination; a collection renamed onto a captured one replaces it there, and is copied ONCE
 * even when the stream is later rewound before the rename (a collection joining at an older position:
 * its copy started before the rename and ends after it); a collection renamed away leaves the
 * destination; a document updated out of the filter is removed. The destination must then equal the
 * source exactly.
 */
class DropsAndRenamesIT {
    private static final String DB = "dr_src";
    private static final String DEST = "dr_dst";
    private static final String PREFIX = "dr";
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final List<String> COLLECTIONS = List.of("gone", "target", "staging", "filtered", "late");

    @Test
    void dropsRenamesAndFilterExitsReachTheDestinationAndARenameIsCopiedOnce() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        FaultInjectingBackend backend = new FaultInjectingBackend();
        try (MongoFixture source = MongoFixture.inProcess(backend, true); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase src = source.client().getDatabase(DB);
            for (int i = 1; i <= 3; i++) {
                src.getCollection("gone").insertOne(new Document("_id", i).append("era", "before the drop"));
            }
            src.getCollection("target").insertMany(List.of(new Document("_id", "t1"), new Document("_id", "t2")));
            src.getCollection("staging").insertMany(List.of(new Document("_id", "s1"), new Document("_id", "s2")));
            src.getCollection("filtered").insertMany(List.of(new Document("_id", 1).append("keep", true),
                    new Document("_id", 2).append("keep", true), new Document("_id", 3).append("keep", false)));

            Map<String, String> sourceConfig = SourceItSupport.sourceConfig(source.uri(), DB, PREFIX, ValueFormat.BSON, 1);
            sourceConfig.put("collection.discovery.interval.ms", "1000");
            sourceConfig.put("filters", "{\"" + DB + ".filtered\": {\"keep\": true}}");
            Map<String, String> sinkConfig = SinkItSupport.sinkConfig("unused", destination.uri(), DEST, ValueFormat.BSON);
            sinkConfig.remove("topics");
            sinkConfig.put("topics.regex", PREFIX + "\\." + DB + "\\..*");
            sinkConfig.put("consumer.override.metadata.max.age.ms", "2000"); // the late collection's topic comes later
            rest.putConnector("dr-source", sourceConfig);
            rest.putConnector("dr-sink", sinkConfig);
            try {
                rest.awaitRunning("dr-source", 1, Duration.ofSeconds(60));
                rest.awaitRunning("dr-sink", 1, Duration.ofSeconds(60));
                SinkItSupport.await("the first copies at the destination", WAIT,
                        () -> equal(source.client(), destination.client()));

                // a collection whose copy takes its start now and cannot read until the rename is handled: it joins the
                // stream at a position before the rename, so the stream is rewound before it
                backend.failNext(DB, Set.of("find"), q -> "late".equals(q.get("find")), MongoErrors.EXCEEDED_TIME_LIMIT,
                        "ExceededTimeLimit", 1_000);
                src.getCollection("late").insertOne(new Document("_id", 1));
                SinkItSupport.await("the late collection's copy begun", WAIT, () -> backend.injected() > 0);

                src.getCollection("gone").drop();
                src.getCollection("gone").insertMany(List.of(new Document("_id", 10).append("era", "after the drop"),
                        new Document("_id", 3).append("era", "after the drop, an _id it had before")));
                src.getCollection("filtered").updateOne(Filters.eq("_id", 2), Updates.set("keep", false));
                src.getCollection("staging").renameCollection(new MongoNamespace(DB, "target"),
                        new RenameCollectionOptions().dropTarget(true));
                SinkItSupport.await("the drop, the rename and the filter exit at the destination", WAIT,
                        () -> equal(source.client(), destination.client(), "gone", "target", "staging", "filtered"));

                backend.disarm();
                SinkItSupport.await("the late collection copied", WAIT, () -> equal(source.client(), destination.client()));
                // after the rewind: a change to the rename's target behind everything the rewound stream read again
                src.getCollection("target").insertOne(new Document("_id", "after the rewind"));
                SinkItSupport.await("the destination equal to the source", WAIT, () -> equal(source.client(), destination.client()));
                List<ConsumerRecord<byte[], byte[]>> targetTopic = TopicReader.readAll(stack.bootstrapServers(),
                        PREFIX + "." + DB + ".target", Duration.ofSeconds(3));
                Set<String> copies = targetTopic.stream().filter(r -> ResnapshotMarker.Stage.BEGIN.wireName().equals(header(r, EventHeaders.MARKER)))
                        .map(r -> header(r, EventHeaders.EPOCH)).collect(Collectors.toSet());
                System.out.printf("drops and renames: destination equal to the source (%s); the rename's target copied %d times "
                        + "(its first copy, then once for the rename)%n", counts(destination.client()), copies.size());
                assertThat(copies).as("copies of the rename's target (begin markers' epochs)").hasSize(2);
                assertThat(equal(source.client(), destination.client())).isTrue();
                assertThat(destination.client().getDatabase(DEST).getCollection("gone").find(Filters.eq("_id", 3)).first())
                        .containsEntry("era", "after the drop, an _id it had before");
            } finally {
                rest.deleteConnector("dr-sink");
                rest.deleteConnector("dr-source");
            }
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** The destination holds what the source does (of {@code filtered}, what its filter keeps), in the collections named (all by default). */
    private static boolean equal(MongoClient source, MongoClient destination, String... only) {
        for (String c : only.length == 0 ? COLLECTIONS : List.of(only)) {
            Map<BsonValue, BsonDocument> want = documents(source, DB, c);
            if (c.equals("filtered")) {
                want.values().removeIf(d -> !d.getBoolean("keep").getValue());
            }
            if (!want.equals(documents(destination, DEST, c))) {
                return false;
            }
        }
        return true;
    }

    private static Map<BsonValue, BsonDocument> documents(MongoClient client, String db, String coll) {
        Map<BsonValue, BsonDocument> out = new TreeMap<>(dev.tideline.mongo.BsonOrder.COMPARATOR);
        client.getDatabase(db).getCollection(coll, BsonDocument.class).find().forEach(d -> out.put(d.get("_id"), d));
        return out;
    }

    private static String counts(MongoClient client) {
        return COLLECTIONS.stream().map(c -> c + " " + client.getDatabase(DEST).getCollection(c).countDocuments())
                .collect(Collectors.joining(", "));
    }
}
