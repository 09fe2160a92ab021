package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.CounterWriter;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.mongo.BsonOrder;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.standin.MongoFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * A copy split across tasks (backfill.split.min.documents), on the real worker, while an application
 * writes: the owner cuts the collection into one {@code _id} range per task, each of the three tasks
 * copies its own range (its own tl.producer, ranges disjoint, every document copied once), the begin
 * marker precedes and the complete marker follows every copy on every partition, each chunk's offset
 * is committed as done, and a Tideline sink downstream ends equal to the source.
 */
class SourceSplitCopyIT {
    private static final String DB = "splitcopy_it";
    private static final String DEST_DB = "splitcopy_dst";
    private static final String COLL = "orders";
    private static final String PREFIX = "scp";
    private static final String TOPIC = PREFIX + "." + DB + "." + COLL;
    private static final int PARTITIONS = 3;
    private static final int TASKS = 3;
    /** ints then strings: a chunk bound of one type must still take in the other type's ids */
    private static final int INT_IDS = 12_000;
    private static final int STRING_IDS = 6_000;
    /** the writer updates ids below this one, inserts from NEW_IDS on and deletes some of those */
    private static final int HOT_IDS = 3_000;
    private static final int NEW_IDS = 1_000_000;

    @Test
    void threeTasksCopyOneCollectionInRangesWhileTheApplicationWrites() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        Namespace ns = new Namespace(DB, COLL);
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase src = source.client().getDatabase(DB);
            List<BsonDocument> docs = new ArrayList<>();
            for (int i = 0; i < INT_IDS; i++) {
                docs.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(0)).append("note", new BsonString("x".repeat(64))));
            }
            for (int i = 0; i < STRING_IDS; i++) {
                docs.add(new BsonDocument("_id", new BsonString(String.format("s%06d", i))).append("note", new BsonString("y".repeat(64))));
            }
            src.getCollection(COLL, BsonDocument.class).insertMany(docs);
            stack.createTopic(TOPIC, PARTITIONS);
            Map<String, String> config = SourceItSupport.sourceConfig(source.uri(), DB, PREFIX, ValueFormat.BSON, TASKS);
            config.put("backfill.split.min.documents", "5000");
            config.put("resnapshot.marker.partitions", Integer.toString(PARTITIONS));
            config.put("batch.size", "500");
            CounterWriter writer = new CounterWriter(src.getCollection(COLL, BsonDocument.class), HOT_IDS, NEW_IDS, 2);
            long started = System.nanoTime();
            try {
                writer.start();
                rest.putConnector("scp-source", config);
                rest.putConnector("scp-sink", SinkItSupport.sinkConfig(TOPIC, destination.uri(), DEST_DB, ValueFormat.BSON));
                rest.awaitRunning("scp-source", TASKS, Duration.ofSeconds(90));
                rest.awaitSourceOffset("scp-source", ns, o -> o.phase() == SourceOffset.Phase.STREAM,
                        "the switch to streaming after the split copy", Duration.ofMinutes(4));
                long copyMs = (System.nanoTime() - started) / 1_000_000;
                long writesDuring = writer.writes();
                writer.stop();

                // every chunk's offset is committed as done, under the copy's own chunk partitions
                List<SourceOffset> chunks = chunkOffsets(rest, ns);
                assertThat(chunks).as("one chunk per task").hasSize(TASKS).allMatch(SourceOffset::isChunkDone);

                List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readAll(stack.bootstrapServers(), TOPIC, Duration.ofSeconds(5));
                Map<String, List<BsonValue>> copiedBy = new TreeMap<>();
                Map<BsonValue, Integer> copies = new HashMap<>();
                Map<String, List<BsonValue>> inOrder = new TreeMap<>();
                Map<Integer, List<String>> perPartition = new TreeMap<>();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    Optional<ResnapshotMarker> marker = ResnapshotMarker.fromHeaders(h -> text(r, h));
                    if (marker.isPresent()) {
                        perPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(marker.get().stage().name());
                    } else if (SourceItSupport.isChange(r)) {
                        ChangeEvent e = SourceItSupport.decode(r, true);
                        if (e.op() == Op.READ) {
                            String producer = SourceItSupport.header(r, EventHeaders.PRODUCER);
                            copiedBy.computeIfAbsent(producer, p -> new ArrayList<>()).add(e.id());
                            inOrder.computeIfAbsent(producer + "/" + r.partition(), p -> new ArrayList<>()).add(e.id());
                            copies.merge(e.id(), 1, Integer::sum);
                            perPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add("copy");
                        }
                    }
                }
                // the order on each partition: begin, its copies, complete (and changes around them, not listed)
                for (Map.Entry<Integer, List<String>> p : perPartition.entrySet()) {
                    List<String> seq = p.getValue();
                    assertThat(seq.get(0)).as("partition %d starts with the begin marker", p.getKey()).isEqualTo("BEGIN");
                    assertThat(seq.get(seq.size() - 1)).as("partition %d ends with the complete marker", p.getKey()).isEqualTo("COMPLETE");
                    assertThat(seq.stream().filter(s -> !s.equals("copy"))).as("one begin and one complete on partition %d", p.getKey())
                            .containsExactly("BEGIN", "COMPLETE");
                }
                assertThat(perPartition).hasSize(PARTITIONS);
                assertThat(copiedBy).as("each task copies a range: one producer per chunk").hasSize(TASKS);
                // each producer's ids form one range, and the ranges do not overlap
                for (Map.Entry<String, List<BsonValue>> e : inOrder.entrySet()) {
                    List<BsonValue> sorted = new ArrayList<>(e.getValue());
                    sorted.sort(BsonOrder.COMPARATOR);
                    assertThat(e.getValue()).as("a chunk is copied in _id order (producer/partition %s)", e.getKey()).isEqualTo(sorted);
                }
                List<BsonValue[]> ranges = new ArrayList<>();
                for (List<BsonValue> ids : copiedBy.values()) {
                    List<BsonValue> sorted = new ArrayList<>(ids);
                    sorted.sort(BsonOrder.COMPARATOR);
                    ranges.add(new BsonValue[] {sorted.get(0), sorted.get(sorted.size() - 1)});
                }
                ranges.sort((a, b) -> BsonOrder.COMPARATOR.compare(a[0], b[0]));
                for (int i = 1; i < ranges.size(); i++) {
                    assertThat(BsonOrder.COMPARATOR.compare(ranges.get(i - 1)[1], ranges.get(i)[0])).as("chunk ranges are disjoint").isNegative();
                }
                for (int i = 0; i < INT_IDS; i += 997) {
                    assertThat(copies).as("an existing document is copied").containsEntry(new BsonInt32(i), 1);
                }
                assertThat(copies).as("copied once each").allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
                assertThat(copies.keySet().stream().filter(BsonValue::isString)).hasSize(STRING_IDS);

                Map<BsonValue, RawBsonDocument> expected = SinkItSupport.snapshot(source.client(), ns);
                Map<BsonValue, BsonDocument> expectedView = new HashMap<>(expected);
                SinkItSupport.await("the destination equal to the source", Duration.ofMinutes(2), () -> SinkItSupport.byteDifferences(
                        expectedView, SinkItSupport.snapshot(destination.client(), new Namespace(DEST_DB, COLL))).isEmpty());
                System.out.printf("SPLIT COPY %d documents by %d tasks (%s copies per producer) while the application wrote %d times: "
                                + "streaming %d ms after the connector was created; destination equal (%d documents)%n",
                        INT_IDS + STRING_IDS, TASKS, copiedBy.values().stream().map(List::size).toList(), writesDuring, copyMs,
                        expected.size());
            } finally {
                writer.stop();
                rest.deleteConnector("scp-sink");
                rest.deleteConnector("scp-source");
            }
        }
    }

    /** The committed offsets of the collection's chunks (partitions of its split copies). */
    @SuppressWarnings("unchecked")
    private static List<SourceOffset> chunkOffsets(ConnectRest rest, Namespace ns) {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        List<SourceOffset> found = new ArrayList<>();
        for (JsonNode o : rest.offsets("scp-source").path("offsets")) {
            Map<String, Object> partition = json.convertValue(o.get("partition"), Map.class);
            if (SourcePartition.isChunk(partition) && SourcePartition.namespace(partition).equals(ns)) {
                found.add(SourceOffset.fromMap(json.convertValue(o.get("offset"), Map.class)));
            }
        }
        return found;
    }

    private static Object text(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
