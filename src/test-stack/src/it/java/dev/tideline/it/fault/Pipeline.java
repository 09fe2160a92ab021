package dev.tideline.it.fault;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Op;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.header.Header;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.RawBsonDocument;
import dev.tideline.it.support.Waits;
import java.util.function.LongSupplier;

/**
 * One source collection → Tideline source → its topic → Tideline sink → one destination collection,
 * both connectors on a real worker through the REST API, in the lossless BSON form. The test writes
 * at the source through a {@link SourceWriter}, injects its faults, then {@link #tally} says what
 * arrived where.
 */
final class Pipeline {
    static final String COLLECTION = "items";
    static final Duration CONVERGE = Duration.ofMinutes(4);
    /** The markers of one whole copy on the change topic ({@link #copies}). */
    static final List<String> ONE_COPY = List.of("resnapshot.begin", "resnapshot.complete");

    final String name;
    final String db;
    final String topic;
    private final String destDb;
    private final String sourceConnector;
    private final String sinkConnector;

    Pipeline(String name) {
        this.name = name;
        this.db = "fault_" + name;
        this.destDb = "fault_" + name + "_dest";
        this.topic = "fault-" + name + "." + db + "." + COLLECTION;
        this.sourceConnector = "fault-" + name + "-source";
        this.sinkConnector = "fault-" + name + "-sink";
    }

    MongoCollection<Document> sourceCollection(MongoClient sourceClient) {
        return sourceClient.getDatabase(db).getCollection(COLLECTION);
    }

    MongoCollection<Document> destCollection(MongoClient destClient) {
        return destClient.getDatabase(destDb).getCollection(COLLECTION);
    }

    /** The source connector's config; {@code overrides} win. */
    Map<String, String> sourceConfig(String sourceUri, Map<String, String> overrides) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", "dev.tideline.source.TidelineSourceConnector");
        c.put("tasks.max", "1");
        c.put("mongodb.uri", sourceUri);
        c.put("database.include", db);
        c.put("topic.prefix", "fault-" + name);
        c.put("output.format", "bson");
        c.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        c.put("mongodb.connect.timeout.ms", "3000");
        c.putAll(overrides);
        return c;
    }

    Map<String, String> sinkConfig(String destUri, Map<String, String> overrides) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", "dev.tideline.sink.TidelineSinkConnector");
        c.put("tasks.max", "1");
        c.put("topics", topic);
        c.put("mongodb.uri", destUri);
        c.put("database", destDb);
        c.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        c.put("mongodb.connect.timeout.ms", "3000");
        c.put("retry.backoff.initial.ms", "200");
        c.put("retry.backoff.max.ms", "2000");
        c.putAll(overrides);
        return c;
    }

    void startSource(ConnectRest rest, String sourceUri, Map<String, String> overrides) {
        rest.putConnector(sourceConnector, sourceConfig(sourceUri, overrides));
        rest.awaitRunning(sourceConnector, 1, Duration.ofSeconds(90));
    }

    void startSink(ConnectRest rest, String destUri, Map<String, String> overrides) {
        rest.putConnector(sinkConnector, sinkConfig(destUri, overrides));
        rest.awaitRunning(sinkConnector, 1, Duration.ofSeconds(90));
    }

    String sourceConnector() {
        return sourceConnector;
    }

    String sinkConnector() {
        return sinkConnector;
    }

    void deleteConnectors(ConnectRest rest) {
        rest.deleteConnector(sinkConnector);
        rest.deleteConnector(sourceConnector);
    }

    /** Waits (up to {@code deadline}) until the destination holds exactly what the writer expects. */
    void awaitDestination(MongoClient dest, Map<Integer, Document> expected, Duration deadline) {
        awaitDestination(dest, expected, deadline, true);
    }

    /** As above; without {@code deletesToo}, documents deleted at the source may remain (they are reported apart). */
    void awaitDestination(MongoClient dest, Map<Integer, Document> expected, Duration deadline, boolean deletesToo) {
        Waits.until(deadline, Duration.ofMillis(500), () -> differences(dest, expected),
                d -> d.missingOrStale() == 0 && (!deletesToo || d.notDeleted() == 0),
                d -> "the destination did not reach the source's state within " + deadline + ": " + d);
    }

    /**
     * Writes the application does while a fault lasts (the worker down, ...) or after the last one: a count of
     * writes observed, not a fixed time (at the writers' pace here, about 1.5 s).
     */
    static final long WRITES_WHILE_DOWN = 500;
    /** A stretch of writes (about 3 s at the writers' pace): streaming under way before a fault, or the last after the faults. */
    static final long STRETCH_OF_WRITES = 1_000;

    /** Waits until the writer has done {@code more} writes after {@code since} (a value of its count). */
    static long awaitWrites(LongSupplier writes, long since, long more, String why) {
        return Waits.until(since + more + " writes (" + more + " more: " + why + ")", Duration.ofMinutes(2), Duration.ofMillis(20),
                writes::getAsLong, w -> w >= since + more);
    }

    /** Missing or stale documents (lost) and documents that should be gone (not deleted). */
    record Differences(int missingOrStale, int notDeleted, List<String> examples) {
        int total() {
            return missingOrStale + notDeleted;
        }
    }

    Differences differences(MongoClient dest, Map<Integer, Document> expected) {
        Map<Object, Document> actual = new HashMap<>();
        for (Document d : dest.getDatabase(destDb).getCollection(COLLECTION).find()) {
            actual.put(d.get("_id"), d);
        }
        int missing = 0;
        List<String> examples = new java.util.ArrayList<>();
        for (Map.Entry<Integer, Document> e : expected.entrySet()) {
            Document got = actual.get(e.getKey());
            if (got == null || !Objects.equals(got.get("v"), e.getValue().get("v"))) {
                missing++;
                if (examples.size() < 5) {
                    examples.add("_id " + e.getKey() + " expected v=" + e.getValue().get("v") + " got " + (got == null ? "nothing" : got.toJson()));
                }
            }
        }
        int extra = 0;
        for (Object id : actual.keySet()) {
            if (!(id instanceof Integer i) || !expected.containsKey(i)) {
                extra++;
                if (examples.size() < 5) {
                    examples.add("_id " + id + " was deleted at the source but is still at the destination");
                }
            }
        }
        return new Differences(missing, extra, examples);
    }

    /** Source and destination collections side by side: counts, and the ids whose documents differ in any byte. */
    record Comparison(long sourceCount, long destinationCount, List<Object> differing) {
        @Override
        public String toString() {
            return "source " + sourceCount + " documents, destination " + destinationCount + ", differing " + differing.size()
                    + (differing.isEmpty() ? " (EQUAL)" : " e.g. _id " + differing.subList(0, Math.min(5, differing.size())));
        }
    }

    Comparison compare(MongoClient source, MongoClient dest) {
        Map<Object, RawBsonDocument> src = new HashMap<>();
        source.getDatabase(db).getCollection(COLLECTION, RawBsonDocument.class).find().forEach(d -> src.put(d.get("_id"), d));
        Map<Object, RawBsonDocument> dst = new HashMap<>();
        dest.getDatabase(destDb).getCollection(COLLECTION, RawBsonDocument.class).find().forEach(d -> dst.put(d.get("_id"), d));
        List<Object> differing = new java.util.ArrayList<>();
        Set<Object> ids = new HashSet<>(src.keySet());
        ids.addAll(dst.keySet());
        for (Object id : ids) {
            RawBsonDocument a = src.get(id);
            RawBsonDocument b = dst.get(id);
            if (a == null || b == null || !a.getByteBuffer().asNIO().equals(b.getByteBuffer().asNIO())) {
                differing.add(id);
            }
        }
        return new Comparison(src.size(), dst.size(), differing);
    }

    /** The resnapshot markers on the change topic, in order ({@code tl.marker} header values). */
    List<String> resnapshotMarkers(String bootstrap) {
        return markers(bootstrap).stream().map(Marker::stage).toList();
    }

    /** A copy marker as read from the change topic: its stage, its copy's epoch and the partition it is on. */
    record Marker(String stage, long epoch, int partition) {
    }

    /** The copy markers on the change topic, in topic order per partition. */
    List<Marker> markers(String bootstrap) {
        return markers(TopicReader.readAll(bootstrap, topic, Duration.ofSeconds(4)));
    }

    private static List<Marker> markers(List<ConsumerRecord<byte[], byte[]>> records) {
        List<Marker> markers = new java.util.ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Header m = r.headers().lastHeader(EventHeaders.MARKER);
            if (m != null) {
                Header epoch = r.headers().lastHeader(EventHeaders.EPOCH);
                markers.add(new Marker(new String(m.value(), StandardCharsets.UTF_8),
                        epoch == null ? -1 : Long.parseLong(new String(epoch.value(), StandardCharsets.UTF_8)), r.partition()));
            }
        }
        return markers;
    }

    /**
     * The copies the markers describe, oldest first: per epoch, the stages in topic order (the test topics
     * have one partition), e.g. {@code [[begin, complete], [begin, complete]]} for two whole copies.
     */
    List<List<String>> copies(String bootstrap) {
        return copies(markers(bootstrap));
    }

    private static List<List<String>> copies(List<Marker> markers) {
        Map<Long, List<String>> byEpoch = new java.util.TreeMap<>(Long::compareUnsigned);
        for (Marker m : markers) {
            byEpoch.computeIfAbsent(m.epoch(), e -> new java.util.ArrayList<>()).add(m.stage());
        }
        return List.copyOf(byEpoch.values());
    }

    /**
     * What arrived where. A duplicate delivery is a change record whose identity — id, operation and
     * source cluster time, which a change stream gives each change once — was already in the topic
     * (a backfill copy re-sent after a restart counts too). Lost in the topic: an id whose last
     * record does not give the state the source ended in. A {@code resnapshot.complete} marker stands
     * for the deletes its copy could not see, as the sink reads it: an id of that partition whose last
     * change is older than the marker's epoch is gone from then on. {@code copies} are the copies the
     * markers of the same records describe ({@link #copies(String)}): the topic is read once, when quiet.
     */
    record Tally(String scenario, String faults, long written, long records, long duplicates, int lostInTopic,
                 long destinationDocs, int lostAtDestination, int notDeleted, long millis, int sweptInTopic,
                 List<List<String>> copies) {
        /** Changes lost on the way (topic or destination) and deletes not applied: 0 when nothing was lost. */
        int divergences() {
            return lostInTopic + lostAtDestination + notDeleted;
        }

        String line() {
            return String.format("FAULTS %-28s faults injected: %s | changes written at the source: %d | records in the topic: %d"
                            + " | documents at the destination: %d | LOST: %d (topic %d, destination %d) | not deleted: %d"
                            + " | duplicate deliveries: %d | %d ms",
                    scenario, faults, written, records, destinationDocs, lostInTopic + lostAtDestination, lostInTopic,
                    lostAtDestination, notDeleted, duplicates, millis)
                    + (sweptInTopic > 0 ? " | deletes carried by resnapshot markers: " + sweptInTopic : "");
        }
    }

    Tally tally(String scenario, String faults, String bootstrap, IsolationLevel isolation, MongoClient dest,
                SourceWriter writer, long startedNanos) {
        Map<Integer, Document> expected = writer.expected();
        List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readAll(bootstrap, topic, Duration.ofSeconds(4), isolation);
        Set<String> seen = new HashSet<>();
        Map<Integer, ChangeEvent> last = new HashMap<>();
        Map<Integer, Integer> partitionOf = new HashMap<>();
        Set<Integer> swept = new HashSet<>();
        long changes = 0;
        long duplicates = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Header marker = r.headers().lastHeader(EventHeaders.MARKER);
            if (marker != null && "resnapshot.complete".equals(new String(marker.value(), StandardCharsets.UTF_8))) {
                BsonTimestamp epoch = new BsonTimestamp(Long.parseLong(new String(r.headers().lastHeader(EventHeaders.EPOCH).value(),
                        StandardCharsets.UTF_8)));
                last.entrySet().removeIf(e -> {
                    boolean gone = partitionOf.get(e.getKey()) == r.partition() && e.getValue().op() != Op.DELETE
                            && e.getValue().clusterTime().compareTo(epoch) < 0;
                    if (gone) {
                        swept.add(e.getKey());
                    }
                    return gone;
                });
                continue;
            }
            Header kind = r.headers().lastHeader(EventHeaders.KIND);
            if (r.value() == null || kind == null
                    || !EventHeaders.KIND_CHANGE.equals(new String(kind.value(), StandardCharsets.UTF_8))) {
                continue;
            }
            ChangeEvent e = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(r.value()));
            changes++;
            if (!seen.add(e.id() + "|" + e.op() + "|" + e.clusterTime())) {
                duplicates++;
            }
            if (e.id().isInt32()) {
                last.put(e.id().asInt32().getValue(), e);
                partitionOf.put(e.id().asInt32().getValue(), r.partition());
            }
        }
        int lostInTopic = 0;
        for (Map.Entry<Integer, Document> e : expected.entrySet()) {
            ChangeEvent got = last.get(e.getKey());
            if (got == null || got.op() == Op.DELETE || got.document() == null
                    || got.document().getInt32("v").getValue() != e.getValue().getInteger("v")) {
                lostInTopic++;
            }
        }
        for (Map.Entry<Integer, ChangeEvent> e : last.entrySet()) {
            if (!expected.containsKey(e.getKey()) && e.getValue().op() != Op.DELETE) {
                lostInTopic++; // its delete never arrived
            }
        }
        Differences d = differences(dest, expected);
        long docs = dest.getDatabase(destDb).getCollection(COLLECTION).countDocuments();
        return new Tally(scenario, faults, writer.writes(), changes, duplicates, lostInTopic, docs, d.missingOrStale(),
                d.notDeleted(), Duration.ofNanos(System.nanoTime() - startedNanos).toMillis(), swept.size(), copies(markers(records)));
    }

    /**
     * The end of a scenario: the writer stops after a last few seconds of writes, the destination must
     * then reach the source's state, and the figures are counted and printed.
     */
    Tally finish(String scenario, String faults, String bootstrap, IsolationLevel isolation, MongoClient dest,
                 SourceWriter writer, long startedNanos) {
        awaitWrites(writer::writes, writer.writes(), STRETCH_OF_WRITES, "the last stretch after the faults");
        writer.stop();
        awaitDestination(dest, writer.expected(), CONVERGE);
        Tally t = tally(scenario, faults, bootstrap, isolation, dest, writer, startedNanos);
        System.out.println(t.line());
        return t;
    }

    /** Both connectors' tasks run: every fault was ridden out without a restart by hand. */
    void assertTasksRunning(ConnectRest rest) {
        for (String connector : List.of(sourceConnector, sinkConnector)) {
            String state = rest.status(connector).path("tasks").path(0).path("state").asText();
            if (!"RUNNING".equals(state)) {
                throw new AssertionError("task 0 of " + connector + " is " + state + ": " + rest.status(connector));
            }
        }
    }
}
