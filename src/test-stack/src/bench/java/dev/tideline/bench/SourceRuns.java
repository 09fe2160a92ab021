package dev.tideline.bench;

import dev.tideline.standin.MongoFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The two sources on the same work, each on a fresh stand-in: draining a pre-filled change backlog
 * (start position before it) and copying an existing collection.
 */
final class SourceRuns {
    /** How long a source may make no progress before its run counts as failed. */
    private static final Duration STALL = Duration.ofSeconds(60);
    static final long HEAP_SAMPLE_MS = 1000;

    private SourceRuns() {
    }

    /**
     * @param rate           records/s over the steady part of the run
     * @param cpuSeconds     worker CPU from connector creation to the last record
     * @param standIn        the source stand-in's CPU over the same run
     * @param heapSamplesMb  heap after GC in the worker: before the connector, then while it drained
     */
    record Drain(double rate, double cpuSeconds, StandInCpu.Share standIn, List<Double> heapSamplesMb) {
    }

    /**
     * {@code n} inserts of 1 KB are written before the connector exists, and it starts from an
     * operation time before them: it reads them as a backlog. With {@code sampleHeap}, a full GC is
     * forced in the worker every second and the heap left is noted (this slows the drain: use a separate run).
     */
    static Drain drain(BenchContext ctx, Contender who, int n, boolean sampleHeap) {
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            Instant from = Instant.now().minusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
            BenchContext.fill(mongo.client(), n);
            String name = ctx.unique((sampleHeap ? "heap-" : "drain-") + who.label().toLowerCase());
            String topic = ConnectorConfigs.topic(name);
            List<Double> heap = new ArrayList<>();
            ctx.quiesce();
            if (sampleHeap) {
                heap.add(ctx.worker.heapAfterGcMb());
            }
            Path jfr = ctx.startJfr(name, !sampleHeap); // forced GCs would dominate a heap run's profile
            double cpu0 = ctx.worker.cpuSeconds();
            StandInCpu standInCpu = StandInCpu.start();
            long start = System.nanoTime();
            ctx.rest.putConnector(name, ConnectorConfigs.source(who, mongo.uri(), name, new ConnectorConfigs.StreamFrom(from)));
            try {
                Progress.Result r = Progress.await(who.label() + " draining " + n + " changes", start,
                        () -> ctx.topics.count(topic), n, STALL, () -> ctx.failure(name),
                        sampleHeap ? count -> heap.add(ctx.worker.heapAfterGcMb()) : null, HEAP_SAMPLE_MS);
                double cpu = ctx.worker.cpuSeconds() - cpu0;
                StandInCpu.Share standIn = standInCpu.stop();
                BenchContext.log(String.format("%s drained %,d changes in %d ms: %.0f events/s, %.1f CPU-s, stand-in %.1f CPU-s (%.0f%% of a core)%s",
                        who.label(), r.endCount(), r.elapsed().toMillis(), r.rate(), cpu, standIn.cpuSeconds(), 100 * standIn.ofOneCore(),
                        sampleHeap ? ", heap after GC (MB) " + rounded(heap) : ""));
                return new Drain(r.rate(), cpu, standIn, heap);
            } finally {
                ctx.stopJfr(name, jfr);
                ctx.deleteAndSettle(name);
            }
        }
    }

    /**
     * Copies a collection of {@code n} 1 KB documents that existed before the connector (written
     * with the stand-in's oplog off, so its history holds none of them: a copy is the only way);
     * docs/s from the connector's first read of the collection to its last document in Kafka.
     * Throws {@link Progress.Stalled} when the connector fails or stops making progress.
     */
    static Copy backfill(BenchContext ctx, Contender who, int n) {
        FirstReadBackend backend = new FirstReadBackend();
        try (MongoFixture mongo = MongoFixture.inProcessOplogAfter(backend, client -> BenchContext.fill(client, n))) {
            String name = ctx.unique("backfill-" + who.label().toLowerCase());
            String topic = ConnectorConfigs.topic(name);
            ctx.quiesce();
            Path jfr = ctx.startJfr(name, true);
            double cpu0 = ctx.worker.cpuSeconds();
            long allocated0 = ctx.worker.allocatedBytes();
            StandInCpu standInCpu = StandInCpu.start();
            long start = System.nanoTime();
            ctx.rest.putConnector(name, ConnectorConfigs.source(who, mongo.uri(), name, new ConnectorConfigs.CopyExisting()));
            try {
                Progress.Result r = Progress.await(who.label() + " copying " + n + " documents", start,
                        () -> ctx.topics.count(topic), n, STALL, () -> ctx.failure(name), null, 0);
                long firstRead = backend.firstReadNanos();
                if (firstRead == 0 || firstRead >= r.endNanos()) {
                    throw new IllegalStateException(who.label() + " copied " + n + " documents without a find or aggregate on "
                            + ConnectorConfigs.NAMESPACE + " seen by the stand-in");
                }
                double cpu = ctx.worker.cpuSeconds() - cpu0;
                double allocatedMb = (ctx.worker.allocatedBytes() - allocated0) / (1024.0 * 1024.0);
                StandInCpu.Share standIn = standInCpu.stop();
                double rate = Stats.perSecond(r.endCount(), r.endNanos() - firstRead);
                BenchContext.log(String.format("%s copied %,d documents in %d ms (first read after %d ms, first record after %d ms): "
                                + "%.0f docs/s from the first read (%.0f docs/s from the first record); worker %.2f CPU-s and %.0f MB "
                                + "allocated (%.1f ms and %.2f MB per 1,000 docs), stand-in %.2f CPU-s (%.0f%% of a core)", who.label(),
                        r.endCount(), r.elapsed().toMillis(), (firstRead - start) / 1_000_000, (r.firstNanos() - start) / 1_000_000, rate,
                        r.rate(), cpu, allocatedMb, 1e6 * cpu / r.endCount(), 1000 * allocatedMb / r.endCount(), standIn.cpuSeconds(),
                        100 * standIn.ofOneCore()));
                return new Copy(rate, cpu, allocatedMb, standIn);
            } finally {
                ctx.stopJfr(name, jfr);
                ctx.deleteAndSettle(name);
            }
        }
    }

    /**
     * @param rate        docs/s from the first read to the last document in Kafka
     * @param cpuSeconds  worker CPU from connector creation to the last document
     * @param allocatedMb what the worker's threads allocated over the same span
     * @param standIn     the source stand-in's CPU over the same span
     */
    record Copy(double rate, double cpuSeconds, double allocatedMb, StandInCpu.Share standIn) {
    }

    static String rounded(List<Double> values) {
        return values.stream().map(v -> Long.toString(Math.round(v))).toList().toString();
    }
}
