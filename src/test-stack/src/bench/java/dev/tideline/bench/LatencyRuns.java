package dev.tideline.bench;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.tideline.standin.MongoFixture;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.bson.Document;

/**
 * End-to-end latency: a source connector and a sink connector chained through Kafka, from the
 * moment the benchmark starts an insert on the source stand-in to the moment the destination
 * stand-in writes that document (both stand-ins live in this JVM, so one clock measures both ends).
 * Inserts are paced at a steady rate (those due every 5 ms in one insertMany); the first {@link #WARM_UP_SECONDS} seconds are not counted.
 * RAW is the same chain done by hand in this JVM: a driver change stream on the source, each event
 * upserted into the destination at once, i.e. the latency the stand-ins alone impose.
 */
final class LatencyRuns {
    static final int WARM_UP_SECONDS = 2;
    private static final long TICK_NANOS = 5_000_000;
    private static final Duration ARRIVAL_DEADLINE = Duration.ofSeconds(120);

    private LatencyRuns() {
    }

    /** Latencies in ms (nearest-rank percentiles of the counted inserts) and the write rate achieved. */
    record Latency(double p50Ms, double p99Ms, double maxMs, double achievedRate) {
    }

    /**
     * How a connector chain is set up besides its defaults.
     *
     * @param guardOff   Tideline's sink with {@code stale.guard=off} (no version sidecar writes)
     * @param lingerZero both sources' producers with {@code linger.ms=0} ({@code producer.override.linger.ms}):
     *                   since Kafka 4.0 a producer waits up to 5 ms by default for a batch to fill, which a
     *                   deployment that wants latency turns off
     */
    record Variant(boolean guardOff, boolean lingerZero) {
        static final Variant DEFAULTS = new Variant(false, false);

        String label() {
            return (guardOff ? " (stale.guard=off)" : "") + (lingerZero ? " (linger.ms=0)" : "");
        }
    }

    static Latency run(BenchContext ctx, Contender who, int rate, int seconds, Variant variant) {
        try (MongoFixture source = MongoFixture.withOplog(); Destination dest = Destination.start()) {
            Instant from = Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
            String name = ctx.unique("e2e-" + who.label().toLowerCase() + (variant.guardOff() ? "-noguard" : "")
                    + (variant.lingerZero() ? "-linger0" : ""));
            // The collection and the topic exist before the connectors, as in production: neither waits
            // for a discovery round or a metadata refresh to find them.
            source.client().getDatabase(ConnectorConfigs.DB).createCollection(ConnectorConfigs.COLL);
            if (who != Contender.RAW) {
                ctx.stack.createTopic(ConnectorConfigs.topic(name), 1);
            }
            Chain chain = who == Contender.RAW ? new RawChain(source, dest) : new ConnectorChain(ctx, who, name, source, dest, from, variant);
            try {
                MongoCollection<Document> coll = RawLimits.collection(source.client(), Document.class);
                awaitLive(coll, dest, chain);
                ctx.quiesce();
                int total = rate * (seconds + WARM_UP_SECONDS);
                long[] written = new long[total];
                long t0 = System.nanoTime();
                int next = 0;
                while (next < total) {
                    // every tick, the inserts that fell due since the last one, in one insertMany: a
                    // steady rate that one thread reaches even where a round trip per insert would not
                    long due = Math.min(total, (System.nanoTime() - t0) * rate / 1_000_000_000L + 1);
                    if (due > next) {
                        long now = System.nanoTime();
                        List<Document> docs = BenchDocs.docs(next, (int) due);
                        for (int i = next; i < due; i++) {
                            written[i] = now;
                        }
                        coll.insertMany(docs);
                        next = (int) due;
                    }
                    LockSupport.parkNanos(TICK_NANOS);
                }
                double achieved = Stats.perSecond(total, System.nanoTime() - t0);
                Progress.await(who.label() + " end-to-end", t0, () -> countArrived(dest, total), total,
                        ARRIVAL_DEADLINE, chain::failure, null, 0);
                int skip = rate * WARM_UP_SECONDS;
                double[] latencies = new double[total - skip];
                for (int i = skip; i < total; i++) {
                    latencies[i - skip] = (dest.backend().firstWriteNanos(i) - written[i]) / 1e6;
                }
                Latency l = new Latency(Stats.percentile(latencies, 50), Stats.percentile(latencies, 99),
                        Stats.percentile(latencies, 100), achieved);
                BenchContext.log(String.format("%s%s end-to-end at %.0f changes/s: p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                        who.label(), variant.label(), achieved, l.p50Ms(), l.p99Ms(), l.maxMs()));
                return l;
            } finally {
                chain.close();
            }
        }
    }

    /** Writes a probe document (negative ids) every 200 ms until one arrives: the chain is live end to end. */
    private static void awaitLive(MongoCollection<Document> coll, Destination dest, Chain chain) {
        long deadline = System.nanoTime() + ARRIVAL_DEADLINE.toNanos();
        for (int probe = -1; ; probe--) {
            coll.insertOne(new Document("_id", probe).append("probe", true));
            Progress.sleep(200);
            if (dest.backend().distinctWritten() > 0) {
                return;
            }
            String failure = chain.failure();
            if (failure != null || System.nanoTime() > deadline) {
                throw new Progress.Stalled("the chain never delivered a probe document: " + (failure != null ? failure : "timeout"));
            }
        }
    }

    private static long countArrived(Destination dest, int total) {
        long n = 0;
        for (int i = 0; i < total; i++) {
            if (dest.backend().firstWriteNanos(i) != null) {
                n++;
            }
        }
        return n;
    }

    private interface Chain extends AutoCloseable {
        /** Why the chain broke, or null. */
        String failure();

        @Override
        void close();
    }

    /** Source and sink connectors of one contender on the worker. */
    private static final class ConnectorChain implements Chain {
        private final BenchContext ctx;
        private final String sourceName;
        private final String sinkName;

        ConnectorChain(BenchContext ctx, Contender who, String name, MongoFixture source, Destination dest, Instant from,
                       Variant variant) {
            this.ctx = ctx;
            this.sourceName = name + "-source";
            this.sinkName = name + "-sink";
            Map<String, String> sourceConfig = ConnectorConfigs.source(who, source.uri(), name, new ConnectorConfigs.StreamFrom(from));
            if (variant.lingerZero()) {
                sourceConfig.put("producer.override.linger.ms", "0");
            }
            ctx.rest.putConnector(sourceName, sourceConfig);
            Map<String, String> sink = ConnectorConfigs.sink(who, dest.uri(), ConnectorConfigs.topic(name));
            if (variant.guardOff()) {
                sink.put("stale.guard", "off");
            }
            ctx.rest.putConnector(sinkName, sink);
        }

        @Override
        public String failure() {
            String source = ctx.failure(sourceName);
            return source != null ? "source: " + source : ctx.failure(sinkName) != null ? "sink: " + ctx.failure(sinkName) : null;
        }

        @Override
        public void close() {
            ctx.rest.deleteConnector(sourceName);
            ctx.deleteAndSettle(sinkName);
        }
    }

    /**
     * The chain by hand, in a thread of this JVM: what one change-stream round trip returns is
     * upserted into the destination in one unordered bulk write.
     */
    private static final class RawChain implements Chain {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final MongoClient sourceClient;
        private final MongoClient destClient;
        private final Thread thread;
        private volatile String failure;

        RawChain(MongoFixture source, Destination dest) {
            // Clients of its own, as a connector in another process has: the writer's pool stays the writer's.
            this.sourceClient = MongoClients.create(source.uri());
            this.destClient = MongoClients.create(dest.uri());
            MongoCollection<Document> out = RawLimits.collection(destClient, Document.class);
            MongoCollection<Document> in = RawLimits.collection(sourceClient, Document.class);
            ReplaceOptions upsert = new ReplaceOptions().upsert(true);
            BulkWriteOptions unordered = new BulkWriteOptions().ordered(false);
            MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = in.watch().batchSize(1000)
                    .maxAwaitTime(1000, TimeUnit.MILLISECONDS).cursor();
            this.thread = new Thread(() -> {
                try (cursor) {
                    List<WriteModel<Document>> batch = new ArrayList<>();
                    while (running.get()) {
                        ChangeStreamDocument<Document> event = cursor.tryNext();
                        if (event != null && event.getFullDocument() != null) {
                            Document doc = event.getFullDocument();
                            batch.add(new ReplaceOneModel<>(Filters.eq("_id", doc.get("_id")), doc, upsert));
                        }
                        if (!batch.isEmpty() && cursor.available() == 0) {
                            out.bulkWrite(batch, unordered);
                            batch = new ArrayList<>();
                        }
                    }
                } catch (RuntimeException e) {
                    failure = e.toString();
                }
            }, "bench-raw-chain");
            thread.start();
        }

        @Override
        public String failure() {
            return failure;
        }

        @Override
        public void close() {
            running.set(false);
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sourceClient.close();
            destClient.close();
        }
    }
}
