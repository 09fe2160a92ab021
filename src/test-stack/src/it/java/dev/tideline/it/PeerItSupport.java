package dev.tideline.it;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.peer.PeerStamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import dev.tideline.it.support.Waits;
import org.awaitility.core.ConditionTimeoutException;

/** Clusters for the peer ITs: a mongo-java-server, a peer source and a peer sink each, and what the tests measure. */
final class PeerItSupport {
    static final String DB = "peer_it";
    /** the link's heartbeat collection (peer.heartbeat.namespace), added to every link's collections */
    static final String HEARTBEATS = "heartbeats";
    /** the link's shared secret (peer.stamp.key) */
    static final String STAMP_KEY = dev.tideline.config.ConfigExamples.PEER_STAMP_KEY;

    private PeerItSupport() {
    }

    /** One cluster: its MongoDB, id, topic prefix and connector names (unique per test through {@code run}). */
    record Cluster(String id, MongoFixture mongo, String prefix, String source, String sink) {
        static Cluster start(String run, String id) {
            return start(run, id, MongoFixture.withOplog());
        }

        /** On a MongoDB of the test's choosing (e.g. a stand-in that injects faults). */
        static Cluster start(String run, String id, MongoFixture mongo) {
            String p = run + id.toLowerCase(java.util.Locale.ROOT);
            return new Cluster(id, mongo, p, p + "-source", p + "-sink");
        }

        String topic(String coll) {
            return prefix + "." + DB + "." + coll;
        }

        MongoCollection<BsonDocument> coll(String name) {
            return mongo.client().getDatabase(DB).getCollection(name, BsonDocument.class);
        }
    }

    /**
     * Creates the collections and topics, then starts each cluster's peer source and its peer sink, which reads
     * the topics of every cluster (its own included: its own records stamp its local writes).
     */
    static void startLinks(TestStack stack, List<Cluster> clusters, List<String> colls) {
        startLinks(stack, clusters, colls, (c, config) -> { }, (c, config) -> { });
    }

    /** As above, with settings added to each cluster's source and sink configuration. */
    static void startLinks(TestStack stack, List<Cluster> clusters, List<String> colls,
                           java.util.function.BiConsumer<Cluster, Map<String, String>> sourceExtra,
                           java.util.function.BiConsumer<Cluster, Map<String, String>> sinkExtra) {
        if (!colls.contains(HEARTBEATS)) {
            colls = new ArrayList<>(colls);
            colls.add(HEARTBEATS); // peer mode requires the link's heartbeats: captured and read like any collection
        }
        for (Cluster c : clusters) {
            for (String coll : colls) {
                c.mongo().client().getDatabase(DB).createCollection(coll);
                stack.createTopic(c.topic(coll), 1);
            }
        }
        for (Cluster c : clusters) {
            Map<String, String> source = SourceItSupport.sourceConfig(c.mongo().uri(), DB, c.prefix(), ValueFormat.BSON, 1);
            source.put("peer.cluster.id", c.id());
            source.put("peer.stamp.key", STAMP_KEY);
            source.put("collection.include", String.join(",", colls.stream().map(x -> DB + "\\." + x).toList()));
            sourceExtra.accept(c, source);
            stack.rest().putConnector(c.source(), source);
        }
        for (Cluster c : clusters) {
            stack.rest().awaitRunning(c.source(), 1, Duration.ofSeconds(90));
        }
        for (Cluster c : clusters) {
            List<String> topics = new ArrayList<>();
            for (Cluster from : clusters) {
                colls.forEach(coll -> topics.add(from.topic(coll)));
            }
            Map<String, String> sink = sinkConfig(c, String.join(",", topics));
            sinkExtra.accept(c, sink);
            stack.rest().putConnector(c.sink(), sink);
        }
        for (Cluster c : clusters) {
            stack.rest().awaitRunning(c.sink(), 1, Duration.ofSeconds(90));
        }
    }

    static Map<String, String> sinkConfig(Cluster c, String topics) {
        Map<String, String> sink = SinkItSupport.sinkConfig(topics, c.mongo().uri(), DB, ValueFormat.BSON);
        sink.put("peer.cluster.id", c.id());
        sink.put("peer.stamp.key", STAMP_KEY);
        sink.put("peer.heartbeat.namespace", DB + "." + HEARTBEATS);
        sink.put("peer.status.database", DB);
        sink.put("consumer.override.max.poll.records", "2000");
        // peer mode sends a record it must not apply to the dead letter queue: required
        sink.put("errors.tolerance", "all");
        sink.put("errors.deadletterqueue.topic.name", dlq(c));
        sink.put("errors.deadletterqueue.topic.replication.factor", "1");
        sink.put("errors.deadletterqueue.context.headers.enable", "true");
        return sink;
    }

    /** The dead letter queue of a cluster's peer sink. */
    static String dlq(Cluster c) {
        return c.sink() + "-dlq";
    }

    static void stopLinks(TestStack stack, List<Cluster> clusters) {
        for (Cluster c : clusters) {
            stack.rest().deleteConnector(c.sink());
            stack.rest().deleteConnector(c.source());
        }
        clusters.forEach(c -> c.mongo().close());
    }

    /** A collection's documents by _id (stamps included). */
    static Map<BsonValue, BsonDocument> snapshot(Cluster c, String coll) {
        Map<BsonValue, BsonDocument> out = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        for (BsonDocument d : c.coll(coll).find()) {
            out.put(d.get("_id"), d);
        }
        return out;
    }

    /** The peer sinks' status documents of a cluster (one per task). */
    static List<BsonDocument> statuses(Cluster c) {
        return c.mongo().client().getDatabase(DB).getCollection(PeerCollections.STATUS, BsonDocument.class).find()
                .into(new ArrayList<>());
    }

    static long counter(Cluster c, String path) {
        long sum = 0;
        for (BsonDocument s : statuses(c)) {
            BsonValue v = s.getDocument("counters");
            for (String part : path.split("\\.")) {
                v = v != null && v.isDocument() ? v.asDocument().get(part) : null;
            }
            sum += v == null ? 0 : v.asNumber().longValue();
        }
        return sum;
    }

    static int queued(Cluster c) {
        return statuses(c).stream().mapToInt(s -> s.getInt32("queued").getValue()).sum();
    }

    static long conflictDocuments(Cluster c) {
        return c.mongo().client().getDatabase(DB).getCollection(PeerCollections.CONFLICTS).countDocuments();
    }

    /**
     * Waits until every cluster holds the same documents (stamps included, MACs aside: see {@link #comparable}), every
     * document carries a stamp matching its content, and no sink has anything queued; returns how long that took.
     */
    static Duration awaitConverged(TestStack stack, List<Cluster> clusters, List<String> colls, Duration timeout) {
        long start = System.nanoTime();
        Waits.until(timeout, Duration.ofMillis(500), () -> {
            failIfAnyFailed(stack, clusters);
            String differences = differences(clusters, colls);
            return differences.isEmpty() && clusters.stream().allMatch(c -> queued(c) == 0) ? null : differences;
        }, java.util.Objects::isNull, last -> {
            StringBuilder waiting = new StringBuilder();
            for (Cluster c : clusters) {
                for (BsonDocument s : statuses(c)) {
                    waiting.append("; ").append(c.id()).append(" queued ").append(s.get("queued")).append(" ").append(s.get("details"));
                }
            }
            return "clusters did not converge within " + timeout + ": " + last + waiting;
        });
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** A failed connector or task ends the wait at once, with its trace. */
    static void failIfAnyFailed(TestStack stack, List<Cluster> clusters) {
        for (Cluster c : clusters) {
            for (String name : List.of(c.source(), c.sink())) {
                com.fasterxml.jackson.databind.JsonNode status = stack.rest().statusOrEmpty(name);
                if (status.toString().contains("\"FAILED\"")) {
                    throw new AssertionError(name + " FAILED: " + status.toPrettyString());
                }
            }
        }
    }

    /**
     * A document as compared between clusters: its stamp without the MAC ({@code k}, {@code m}), which is bound to the
     * cluster that holds the document; the content, origin, version and base must be the same everywhere.
     */
    static BsonDocument comparable(BsonDocument d) {
        BsonDocument out = d.clone();
        if (out.isDocument(PeerStamp.FIELD)) {
            out.getDocument(PeerStamp.FIELD).remove("k");
            out.getDocument(PeerStamp.FIELD).remove("m");
        }
        return out;
    }

    static Map<BsonValue, BsonDocument> comparableSnapshot(Cluster c, String coll) {
        Map<BsonValue, BsonDocument> out = snapshot(c, coll);
        out.replaceAll((id, d) -> comparable(d));
        return out;
    }

    static String differences(List<Cluster> clusters, List<String> colls) {
        for (String coll : colls) {
            Map<BsonValue, BsonDocument> first = comparableSnapshot(clusters.get(0), coll);
            for (BsonDocument d : first.values()) {
                PeerStamp s = PeerStamp.read(d);
                if (s == null || !s.hash().equals(ContentHash.of(d))) {
                    return clusters.get(0).id() + " " + coll + " " + d.get("_id") + " has no valid stamp yet";
                }
            }
            for (Cluster other : clusters.subList(1, clusters.size())) {
                Map<BsonValue, BsonDocument> docs = comparableSnapshot(other, coll);
                if (!docs.equals(first)) {
                    int diff = 0;
                    String example = "";
                    for (BsonValue id : union(first, docs)) {
                        if (!java.util.Objects.equals(first.get(id), docs.get(id))) {
                            diff++;
                            example = id + ": " + first.get(id) + " vs " + docs.get(id);
                        }
                    }
                    return coll + ": " + clusters.get(0).id() + " and " + other.id() + " differ on " + diff + " document(s), e.g. " + example;
                }
            }
        }
        return "";
    }

    private static List<BsonValue> union(Map<BsonValue, BsonDocument> a, Map<BsonValue, BsonDocument> b) {
        Map<String, BsonValue> all = new TreeMap<>();
        a.keySet().forEach(k -> all.put(k.toString(), k));
        b.keySet().forEach(k -> all.put(k.toString(), k));
        return new ArrayList<>(all.values());
    }

    /** What one cluster's source emitted for one collection: records by origin, and write tags per origin. */
    record Emitted(int records, Map<String, Integer> byOrigin, Map<String, Integer> tagCounts, Map<String, Integer> tagVersionCounts,
                   List<String> misattributed, Map<String, List<String>> historyByTag) {
        /** Every record this cluster emitted for the documents that carried these tags (offset, op, origin, version, tag). */
        String historyOf(List<String> repeated) {
            StringBuilder out = new StringBuilder();
            for (String r : repeated) {
                String tag = r.substring(0, r.indexOf('@'));
                out.append("\n  ").append(r).append(": ").append(historyByTag.getOrDefault(tag, List.of()));
            }
            return out.toString();
        }

        /**
         * Writes (tag "<cluster>-<n>" in field w) of this origin emitted more than once WITH THE SAME VERSION by
         * inserts and replaces (events that carry their own document): a record (one version of one write)
         * applied more than once on this cluster. Update events are left out: their looked-up document may be a
         * later state of the document (see docs/peer-replication.md).
         */
        List<String> repeatedVersions(String origin) {
            return tagVersionCounts.entrySet().stream().filter(e -> e.getKey().startsWith(origin + "-") && e.getValue() > 1)
                    .map(e -> e.getKey() + " x" + e.getValue()).toList();
        }

        /** Writes of this origin emitted more than once (under different versions, see docs/peer-replication.md). */
        List<String> repeatedTags(String origin) {
            return tagCounts.entrySet().stream().filter(e -> e.getKey().startsWith(origin + "-") && e.getValue() > 1)
                    .map(e -> e.getKey() + " x" + e.getValue()).toList();
        }
    }

    /**
     * Reads a cluster's topic: every change record's origin must be the cluster its write tag names (a local
     * write carries this cluster's tag, a peer write the peer's); counts how often each tag was emitted.
     */
    static Emitted emitted(TestStack stack, Cluster c, String coll) {
        List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readAll(stack.bootstrapServers(), c.topic(coll), Duration.ofSeconds(3));
        Map<String, Integer> byOrigin = new TreeMap<>();
        Map<String, Integer> tags = new HashMap<>();
        Map<String, Integer> tagVersions = new HashMap<>();
        Map<String, List<String>> byId = new HashMap<>();
        Map<String, String> idOfTag = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (!SourceItSupport.isChange(r)) {
                continue;
            }
            n++;
            ChangeEvent e = SourceItSupport.decode(r, true);
            String origin = String.valueOf(SourceItSupport.header(r, EventHeaders.ORIGIN)); // "null": an update looked up after its delete (no document, skipped by the sinks)
            byOrigin.merge(origin, 1, Integer::sum);
            String w = e.document() != null && e.document().isString("w") ? e.document().getString("w").getValue() : "-";
            byId.computeIfAbsent(e.id().toString(), k -> new ArrayList<>()).add(r.offset() + " " + e.op().wireName() + " "
                    + origin + " " + SourceItSupport.header(r, PeerHeaders.VERSION) + " " + w);
            idOfTag.put(w, e.id().toString());
            if (e.document() != null && e.document().isString("w")) {
                String tag = e.document().getString("w").getValue();
                tags.merge(tag, 1, Integer::sum);
                if (e.op() != Op.UPDATE) {
                    // an update's document is looked up when the source reads it and may show a later state (a
                    // re-insert after a delete): only documents carried by the event itself count as applications
                    tagVersions.merge(tag + "@" + SourceItSupport.header(r, PeerHeaders.VERSION), 1, Integer::sum);
                }
                if (!tag.startsWith(origin + "-")) {
                    wrong.add(tag + " emitted with origin " + origin);
                }
            }
        }
        Map<String, List<String>> historyByTag = new HashMap<>();
        idOfTag.forEach((tag, id) -> historyByTag.put(tag, byId.get(id)));
        return new Emitted(n, byOrigin, tags, tagVersions, wrong, historyByTag);
    }

    /**
     * Random application writes on one cluster: inserts, $set updates, replaces and deletes over {@code ids}
     * shared ids; each write tags the document with w = "<cluster>-<n>". Returns counts per kind.
     */
    static Map<String, Integer> workload(Cluster c, String coll, int ops, int ids, long seed) {
        Random random = new Random(seed);
        MongoCollection<BsonDocument> col = c.coll(coll);
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < ops; i++) {
            counts.merge(write(col, new BsonInt32(random.nextInt(ids)), c.id() + "-" + i, random), 1, Integer::sum);
        }
        return counts;
    }

    /**
     * As {@link #workload}, at a steady {@code rate} of writes per second (the i-th write is due at start + i/rate;
     * a write that falls behind is made at once).
     */
    static Map<String, Integer> pacedWorkload(Cluster c, String coll, int ops, int rate, int ids, long seed) {
        return pacedWorkload(c, coll, ops, rate, ids, seed, null);
    }

    /**
     * The last application write of each id, by either cluster, in this JVM's clock: what last-writer-wins should end
     * on, wherever the clusters' clocks agree with it (see {@link #lastWriterFidelity}).
     */
    static final class LastWrites {
        record Op(long at, String cluster, String result) {
        }

        private final Map<BsonValue, Op> last = new java.util.concurrent.ConcurrentHashMap<>();
        /** per id, the last write of each cluster */
        private final Map<BsonValue, Map<String, Op>> lastByCluster = new java.util.concurrent.ConcurrentHashMap<>();

        synchronized void note(BsonValue id, String cluster, String result) {
            Op op = new Op(System.nanoTime(), cluster, result);
            last.put(id, op);
            lastByCluster.computeIfAbsent(id, k -> new HashMap<>()).put(cluster, op);
        }

        /** The latest write of {@code id} by a cluster other than the last writer's, null when none. */
        synchronized Op otherClustersLast(BsonValue id) {
            Op mine = last.get(id);
            return lastByCluster.getOrDefault(id, Map.of()).values().stream().filter(o -> !o.cluster().equals(mine.cluster()))
                    .max(java.util.Comparator.comparingLong(Op::at)).orElse(null);
        }
    }

    /**
     * Of the ids whose last application write was made at least {@code marginMs} after the other cluster's last write
     * (so no clock difference between the clusters can order them otherwise), how many end as that write (its tag,
     * or absent for a delete); the others were lost to an older write or delete.
     */
    static String lastWriterFidelity(LastWrites writes, Cluster c, String coll, long marginMs) {
        return lastWriterFidelity(writes, c, coll, marginMs, new ArrayList<>());
    }

    /** As above; {@code lostIds} receives the ids that did not end as their last write. */
    static String lastWriterFidelity(LastWrites writes, Cluster c, String coll, long marginMs, List<BsonValue> lostIds) {
        Map<BsonValue, BsonDocument> now = snapshot(c, coll);
        int clear = 0;
        int kept = 0;
        List<String> lost = new ArrayList<>();
        for (Map.Entry<BsonValue, LastWrites.Op> e : writes.last.entrySet()) {
            LastWrites.Op other = writes.otherClustersLast(e.getKey());
            if (other != null && e.getValue().at() - other.at() < marginMs * 1_000_000) {
                continue;
            }
            clear++;
            BsonDocument d = now.get(e.getKey());
            String expected = e.getValue().result();
            String actual = d == null ? "deleted" : d.isString("w") ? d.getString("w").getValue() : "?";
            if (expected.equals(actual)) {
                kept++;
            } else {
                lostIds.add(e.getKey());
                if (lost.size() < 5) {
                    lost.add(e.getKey() + ": last " + expected + ", now " + actual);
                }
            }
        }
        return kept + " of " + clear + " ids end as their last write (made " + marginMs + " ms or more after the other cluster's)"
                + (lost.isEmpty() ? "" : ", e.g. " + lost);
    }

    static Map<String, Integer> pacedWorkload(Cluster c, String coll, int ops, int rate, int ids, long seed, LastWrites writes) {
        Random random = new Random(seed);
        MongoCollection<BsonDocument> col = c.coll(coll);
        Map<String, Integer> counts = new LinkedHashMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            long due = start + i * 1_000_000_000L / rate;
            long wait = (due - System.nanoTime()) / 1_000_000;
            if (wait > 0) {
                Waits.pause(Duration.ofMillis(wait), "the workload's rate");
            }
            BsonInt32 id = new BsonInt32(random.nextInt(ids));
            String tag = c.id() + "-" + i;
            String kind = write(col, id, tag, random);
            counts.merge(kind, 1, Integer::sum);
            if (writes != null) {
                writes.note(id, c.id(), kind.equals("delete") ? "deleted" : tag);
            }
        }
        return counts;
    }

    /** A document without its peer stamp: what "equal, the stamp aside" compares. */
    static BsonDocument withoutStamp(BsonDocument d) {
        BsonDocument out = d.clone();
        out.remove(PeerStamp.FIELD);
        return out;
    }

    /** The ids whose documents differ (stamps aside) between the first cluster and any other, sorted. */
    static List<BsonValue> contentDifferences(List<Cluster> clusters, String coll) {
        Map<BsonValue, BsonDocument> first = snapshot(clusters.get(0), coll);
        List<BsonValue> out = new ArrayList<>();
        for (Cluster other : clusters.subList(1, clusters.size())) {
            Map<BsonValue, BsonDocument> docs = snapshot(other, coll);
            for (BsonValue id : union(first, docs)) {
                BsonDocument x = first.get(id);
                BsonDocument y = docs.get(id);
                if ((x == null) != (y == null) || x != null && !withoutStamp(x).equals(withoutStamp(y))) {
                    if (!out.contains(id)) {
                        out.add(id);
                    }
                }
            }
        }
        return out;
    }

    /** The health a cluster's peer sink reports now: its status document's, or "stale" when not rewritten lately. */
    static String health(Cluster c) {
        List<BsonDocument> all = statuses(c);
        if (all.isEmpty()) {
            return "none";
        }
        BsonDocument latest = all.stream().max(java.util.Comparator.comparingLong(s -> s.getInt64("updatedAt").getValue())).get();
        long age = System.currentTimeMillis() - latest.getInt64("updatedAt").getValue();
        // expiresAt: a status its task stopped rewriting (a dead worker, a stopped connector) says nothing
        return latest.getDateTime("expiresAt").getValue() < System.currentTimeMillis() ? "stale(" + age + " ms)"
                : latest.getString("health").getValue();
    }

    /**
     * What a watch of a link after its writes stopped saw: whether (and when) the clusters became equal, stamps
     * aside, and the samples where documents had differed for over {@code stableMs} while every sink said ok.
     */
    record Watch(boolean converged, Duration after, int samples, int maxDiffering, List<String> differedWhileOk, String last) {
        @Override
        public String toString() {
            return (converged ? "equal after " + after.toMillis() + " ms" : "NOT equal after " + after.toMillis() + " ms: " + last)
                    + " (" + samples + " samples, at most " + maxDiffering + " documents differing, " + differedWhileOk.size()
                    + " samples where documents differed for over " + DIFFER_STABLE_MS + " ms while every sink reported ok)";
        }
    }

    static final long DIFFER_STABLE_MS = 15_000;

    /**
     * Samples the link every second until the clusters hold equal documents (stamps aside) and nothing is queued,
     * or until {@code timeout}: counts the documents that differ and the sinks' health at each sample.
     */
    static Watch watchUntilConverged(TestStack stack, List<Cluster> clusters, List<String> colls, Duration timeout) {
        long start = System.nanoTime();
        Map<String, Long> differingSince = new HashMap<>();
        List<String> whileOk = new ArrayList<>();
        int[] samples = {0};
        int[] max = {0};
        String[] last = {""};
        boolean converged;
        try {
            Waits.await("the clusters converged", timeout, Duration.ofSeconds(1)).until(() -> {
                failIfAnyFailed(stack, clusters);
                samples[0]++;
                long now = System.currentTimeMillis();
                Map<String, Long> still = new HashMap<>();
                List<String> differing = new ArrayList<>();
                for (String coll : colls) {
                    for (BsonValue id : contentDifferences(clusters, coll)) {
                        String key = coll + " " + id;
                        differing.add(key);
                        still.put(key, differingSince.getOrDefault(key, now));
                    }
                }
                differingSince.clear();
                differingSince.putAll(still);
                max[0] = Math.max(max[0], differing.size());
                List<String> health = clusters.stream().map(c -> c.id() + "=" + health(c)).toList();
                boolean allOk = health.stream().allMatch(h -> h.endsWith("=ok"));
                long oldest = still.values().stream().mapToLong(t -> now - t).max().orElse(0);
                last[0] = differing.size() + " differing " + differing.subList(0, Math.min(5, differing.size())) + ", health " + health
                        + ", queued " + clusters.stream().map(c -> c.id() + "=" + queued(c)).toList();
                if (allOk && oldest > DIFFER_STABLE_MS) {
                    whileOk.add(last[0]);
                }
                return differing.isEmpty() && clusters.stream().allMatch(c -> queued(c) == 0);
            });
            converged = true;
        } catch (ConditionTimeoutException e) {
            converged = false; // the caller reports the watch, its last sample included
        }
        return new Watch(converged, Duration.ofNanos(System.nanoTime() - start), samples[0], max[0], whileOk, last[0]);
    }

    /**
     * For up to {@code limit} documents that differ: each cluster's copy (stamp included) and every record each
     * cluster's source emitted for it (offset, op, origin, version, base, tag).
     */
    static String diagnose(TestStack stack, List<Cluster> clusters, String coll, int limit) {
        List<BsonValue> ids = contentDifferences(clusters, coll);
        return ids.size() + " documents differ" + history(stack, clusters, clusters, coll, ids.subList(0, Math.min(limit, ids.size())));
    }

    /**
     * For each of {@code ids}: each cluster's copy (stamp included) and tombstone, and every record for it on the topics
     * of {@code emitters} (offset, op, origin, version, base, cluster time, tag).
     */
    static String history(TestStack stack, List<Cluster> clusters, List<Cluster> emitters, String coll, java.util.Collection<BsonValue> ids) {
        StringBuilder out = new StringBuilder();
        Map<String, List<ConsumerRecord<byte[], byte[]>>> topics = new LinkedHashMap<>();
        for (Cluster c : emitters) {
            topics.put(c.topic(coll), TopicReader.readAll(stack.bootstrapServers(), c.topic(coll), Duration.ofSeconds(3)));
        }
        for (BsonValue id : ids) {
            out.append("\n== ").append(id);
            for (Cluster c : clusters) {
                out.append("\n  on ").append(c.id()).append(": ").append(snapshot(c, coll).get(id)).append(" tombstone ")
                        .append(c.mongo().client().getDatabase(DB).getCollection(PeerCollections.TOMBSTONES, BsonDocument.class)
                                .find(Filters.eq("_id", PeerCollections.tombstoneKey(coll, id))).first());
            }
            for (Map.Entry<String, List<ConsumerRecord<byte[], byte[]>>> t : topics.entrySet()) {
                out.append("\n  on ").append(t.getKey()).append(':');
                for (ConsumerRecord<byte[], byte[]> r : t.getValue()) {
                    if (!SourceItSupport.isChange(r)) {
                        continue;
                    }
                    ChangeEvent e = SourceItSupport.decode(r, true);
                    if (!e.id().equals(id)) {
                        continue;
                    }
                    String w = e.document() != null && e.document().isString("w") ? e.document().getString("w").getValue() : "-";
                    out.append("\n    ").append(r.offset()).append(' ').append(e.op().wireName()).append(" origin=")
                            .append(SourceItSupport.header(r, EventHeaders.ORIGIN)).append(" v=")
                            .append(SourceItSupport.header(r, PeerHeaders.VERSION)).append(" base=")
                            .append(SourceItSupport.header(r, PeerHeaders.BASE)).append(" ct=").append(e.clusterTime())
                            .append(" w=").append(w);
                }
            }
        }
        return out.toString();
    }

    /** One write that changes something: an op that finds nothing to change (missing, or present) becomes the other. */
    static String write(MongoCollection<BsonDocument> col, BsonValue id, String tag, Random random) {
        double r = random.nextDouble();
        for (int attempt = 0; ; attempt++) {
            boolean exists = col.countDocuments(Filters.eq("_id", id)) > 0;
            try {
                if (!exists) {
                    col.insertOne(fresh(id, tag, random));
                    return "insert";
                }
                if (r < 0.45) {
                    if (col.updateOne(Filters.eq("_id", id), Updates.combine(Updates.set("w", new BsonString(tag)),
                            Updates.set("v", new BsonInt64(random.nextLong())))).getModifiedCount() == 1) {
                        return "update";
                    }
                } else if (r < 0.75) {
                    if (col.replaceOne(Filters.eq("_id", id), fresh(id, tag, random)).getMatchedCount() == 1) {
                        return "replace";
                    }
                } else if (col.deleteOne(Filters.eq("_id", id)).getDeletedCount() == 1) {
                    return "delete";
                }
            } catch (MongoWriteException e) {
                if (attempt > 20) {
                    throw e;
                }
                // the peer sink inserted it meanwhile: try again on what is there now
            }
        }
    }

    static BsonDocument fresh(BsonValue id, String tag, Random random) {
        return new BsonDocument("_id", id).append("w", new BsonString(tag)).append("v", new BsonInt64(random.nextLong()))
                .append("nested", new BsonDocument("pad", new BsonString("x".repeat(random.nextInt(64)))));
    }
}
