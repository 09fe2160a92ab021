package dev.tideline.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleSupplier;

/**
 * What the benchmark measures, in which order, and into which row of the table. Each run of a figure
 * takes raw, Tideline and official in turn (the connectors' order alternating between runs), so a
 * noisy moment of the machine, or a cold worker, spreads over all of them instead of falling on one. A measurement that throws is recorded as FAILED with its reason.
 */
final class Measurements {
    /** The untimed latency run of each connector before the timed ones. */
    private static final int LATENCY_WARM_UP_SECONDS = 4;

    private final BenchContext ctx;
    private final BenchSizes sizes;
    private final ResultTable table;
    private boolean tidelineOk = true;

    final Metric drainRate;
    final Metric drainCpu;
    final Metric drainStandInCpu;
    final Metric backfillSmall;
    final Metric backfillLarge;
    final Metric findInIdOrderLarge;
    final Metric backfillLimit;
    final Metric producerCopyRecords;
    final Metric backfillCpu;
    final Metric backfillAlloc;
    final Metric backfillStandInCpu;
    final Metric sinkRate;
    final Metric sinkCpu;
    final Metric sinkStandInCpu;
    final Metric sinkRateNoGuard;
    final Metric sinkRateBigPoll;
    final Metric sinkRateBigPollNoGuard;
    final Metric sinkCpuNoGuard;
    final Metric sinkStandInCpuNoGuard;
    final Metric latencyP50;
    final Metric latencyP99;
    final Metric latencyNoGuardP50;
    final Metric latencyNoGuardP99;
    final Metric latencyLingerZeroP50;
    final Metric latencyLingerZeroP99;
    final Metric heapMax;
    final Metric heapGrowth;
    final Metric producer;

    Measurements(BenchContext ctx) {
        this.ctx = ctx;
        this.sizes = ctx.sizes;
        this.table = ctx.table;
        drainRate = new Metric(String.format("streaming drain of %,d x 1 KB changes", sizes.streamBacklog()), "events/s", true);
        drainCpu = new Metric("  worker CPU for that drain", "CPU-s", false);
        drainStandInCpu = new Metric("  stand-in CPU for that drain", "CPU-s", false);
        backfillSmall = new Metric(String.format("backfill of %,d docs", sizes.backfillSmall()), "docs/s", true);
        backfillLarge = new Metric(String.format("backfill of %,d docs", sizes.backfillLarge()), "docs/s", true);
        findInIdOrderLarge = new Metric("  raw: find of as many in _id order, as a resumable copy reads", "docs/s", true);
        producerCopyRecords = new Metric(String.format("  raw: Kafka producer, as many records as a copy sends them (key, headers)"), "records/s", true);
        backfillLimit = new Metric("  the copy against its limit, min(find in _id order, producer)", "docs/s", true);
        backfillCpu = new Metric("  worker CPU per 1,000 docs of that copy", "CPU-ms", false);
        backfillAlloc = new Metric("  worker allocation per 1,000 docs of that copy", "MB", false);
        backfillStandInCpu = new Metric("  stand-in CPU for that copy", "CPU-s", false);
        sinkRate = new Metric(String.format("sink applying %,d change records", sizes.sinkRecords()), "docs/s", true);
        sinkCpu = new Metric("  worker CPU for that sink run", "CPU-s", false);
        sinkStandInCpu = new Metric("  stand-in CPU for that sink run", "CPU-s", false);
        sinkRateNoGuard = new Metric("  the same, Tideline with stale.guard=off", "docs/s", true);
        sinkCpuNoGuard = new Metric("  worker CPU, Tideline with stale.guard=off", "CPU-s", false);
        sinkStandInCpuNoGuard = new Metric("  stand-in CPU, Tideline with stale.guard=off", "CPU-s", false);
        sinkRateBigPoll = new Metric("  both sinks' consumers with max.poll.records=" + RawLimits.BULK + " (raw's bulk)", "docs/s", true);
        sinkRateBigPollNoGuard = new Metric("  those polls, Tideline with stale.guard=off", "docs/s", true);
        latencyP50 = new Metric(String.format("end-to-end latency p50 at %,d changes/s", sizes.latencyRate()), "ms", false);
        latencyP99 = new Metric(String.format("end-to-end latency p99 at %,d changes/s", sizes.latencyRate()), "ms", false);
        latencyNoGuardP50 = new Metric("  p50, Tideline with stale.guard=off", "ms", false);
        latencyNoGuardP99 = new Metric("  p99, Tideline with stale.guard=off", "ms", false);
        latencyLingerZeroP50 = new Metric("  p50, both sources' producers with linger.ms=0", "ms", false);
        latencyLingerZeroP99 = new Metric("  p99, both sources' producers with linger.ms=0", "ms", false);
        heapMax = new Metric(String.format("worker heap after GC, max while draining %,d", sizes.heapBacklog()), "MB", false);
        heapGrowth = new Metric("  growth over the idle worker's heap", "MB", false);
        producer = new Metric(String.format("Kafka producer, %,d x 1 KB records", sizes.sinkRecords()), "records/s", true);
    }

    /**
     * Runs every part, or those named in {@code -Dbench.only} (comma-separated: streaming, backfill,
     * sink, latency, heap, kafka) when looking into one; false when a Tideline measurement failed.
     * {@code afterEachPart} writes the figures so far, so an interrupted run still leaves them.
     */
    boolean runAll(Runnable afterEachPart) {
        Set<String> only = Set.of(System.getProperty("bench.only", "").split(","));
        if (sizes.warmUpRecords() > 0) {
            warmUp(sizes.warmUpRecords());
        }
        Map<String, Runnable> parts = new LinkedHashMap<>();
        parts.put("streaming", this::streaming);
        parts.put("backfill", this::backfill);
        parts.put("sink", this::sink);
        parts.put("latency", this::latency);
        parts.put("heap", this::heap);
        parts.put("kafka", this::kafka);
        parts.forEach((name, part) -> {
            if (only.contains("") || only.contains(name)) {
                part.run();
                afterEachPart.run();
            } else {
                table.note("Part " + name + " not run (-Dbench.only).");
            }
        });
        return tidelineOk;
    }

    /**
     * One small untimed round of each connector's source and sink before anything is measured: the
     * first connector to run in a fresh worker otherwise also pays for compiling Connect's and the
     * producer's code (up to 4x slower in the first run). {@code -Dbench.warmup=false} skips it.
     */
    private void warmUp(int n) {
        BenchContext.log("warm-up: " + n + " changes drained, copied and applied by each connector, not measured");
        for (Contender who : List.of(Contender.TIDELINE, Contender.OFFICIAL)) {
            try {
                SourceRuns.drain(ctx, who, n, false);
                SourceRuns.backfill(ctx, who, n);
                SinkRuns.apply(ctx, who, SinkRuns.produceTopic(ctx, who, n), n, SinkRuns.Variant.DEFAULTS);
            } catch (RuntimeException e) {
                table.note("Warm-up of " + who.label() + " failed (its first measured run may include JIT warm-up): " + e.getMessage());
            }
        }
    }

    private void streaming() {
        for (int run = 1; run <= sizes.runs(); run++) {
            BenchContext.log("streaming drain, run " + run + " of " + sizes.runs());
            measure(drainRate, Contender.RAW, () -> RawLimits.changeStreamRead(sizes.streamBacklog()));
            for (Contender who : connectorsInTurn(run)) {
                try {
                    SourceRuns.Drain d = SourceRuns.drain(ctx, who, sizes.streamBacklog(), false);
                    table.add(drainRate, who, d.rate());
                    table.add(drainCpu, who, d.cpuSeconds());
                    standIn(drainRate, drainStandInCpu, who, run, d.standIn());
                } catch (RuntimeException e) {
                    failed(drainRate, who, e);
                }
            }
        }
    }

    private void backfill() {
        table.note("Backfill rates run from the connector's first read of the collection (as the stand-in sees it) to its last "
                + "document in Kafka: the official connector reads the whole collection in one reply before it sends a record, "
                + "so a rate from the first record would leave its reading out.");
        for (int run = 1; run <= sizes.runs(); run++) {
            BenchContext.log("backfill of " + sizes.backfillSmall() + ", run " + run + " of " + sizes.runs());
            measure(backfillSmall, Contender.RAW, () -> RawLimits.findRead(sizes.backfillSmall()));
            for (Contender who : connectorsInTurn(run)) {
                measure(backfillSmall, who, () -> SourceRuns.backfill(ctx, who, sizes.backfillSmall()).rate());
            }
        }
        for (int run = 1; run <= sizes.runs(); run++) {
            BenchContext.log("backfill of " + sizes.backfillLarge() + ", run " + run + " of " + sizes.runs());
            measure(backfillLarge, Contender.RAW, () -> RawLimits.findRead(sizes.backfillLarge()));
            Double find = measure(findInIdOrderLarge, Contender.RAW, () -> RawLimits.findRead(sizes.backfillLarge(), true));
            String topic = ctx.unique("copy-records");
            Double produce = measure(producerCopyRecords, Contender.RAW,
                    () -> RawLimits.kafkaProduce(ctx.stack.bootstrapServers(), topic, sizes.backfillLarge(), true));
            if (find != null && produce != null) {
                table.add(backfillLimit, Contender.RAW, Math.min(find, produce));
            }
            Double copy = largeCopy(run, Contender.TIDELINE);
            if (copy != null) {
                table.add(backfillLimit, Contender.TIDELINE, copy);
            }
            if (run == 1) {
                // Once: where it fails it fails the same way each time (docs/mongodb-stand-in.md), and a stall costs a minute.
                largeCopy(run, Contender.OFFICIAL);
            }
        }
    }

    /** The large copy's rate with the worker's CPU and allocation per 1,000 docs (load-independent) and the stand-in's CPU. */
    private Double largeCopy(int run, Contender who) {
        try {
            SourceRuns.Copy c = SourceRuns.backfill(ctx, who, sizes.backfillLarge());
            table.add(backfillLarge, who, c.rate());
            table.add(backfillCpu, who, 1e6 * c.cpuSeconds() / sizes.backfillLarge());
            table.add(backfillAlloc, who, 1000 * c.allocatedMb() / sizes.backfillLarge());
            standIn(backfillLarge, backfillStandInCpu, who, run, c.standIn());
            return c.rate();
        } catch (RuntimeException e) {
            failed(backfillLarge, who, e);
            return null;
        }
    }

    private void sink() {
        String tidelineTopic = SinkRuns.produceTopic(ctx, Contender.TIDELINE, sizes.sinkRecords());
        String officialTopic = SinkRuns.produceTopic(ctx, Contender.OFFICIAL, sizes.sinkRecords());
        for (int run = 1; run <= sizes.runs(); run++) {
            BenchContext.log("sink, run " + run + " of " + sizes.runs());
            Double raw = measure(sinkRate, Contender.RAW, () -> RawLimits.bulkUpsert(sizes.sinkRecords()));
            if (raw != null) {
                table.add(sinkRateNoGuard, Contender.RAW, raw);
            }
            for (Contender who : connectorsInTurn(run)) {
                try {
                    SinkRuns.Apply a = SinkRuns.apply(ctx, who, who == Contender.TIDELINE ? tidelineTopic : officialTopic,
                            sizes.sinkRecords(), SinkRuns.Variant.DEFAULTS);
                    table.add(sinkRate, who, a.rate());
                    table.add(sinkCpu, who, a.cpuSeconds());
                    standIn(sinkRate, sinkStandInCpu, who, run, a.standIn());
                    if (who == Contender.OFFICIAL) {
                        table.add(sinkCpuNoGuard, who, a.cpuSeconds()); // the official sink has no guard to turn off
                        table.add(sinkStandInCpuNoGuard, who, a.standIn().cpuSeconds());
                    }
                } catch (RuntimeException e) {
                    failed(sinkRate, who, e);
                }
            }
            // The default keeps a version per document in a sidecar collection (a second write per
            // change); this row shows what that costs against the same raw limit.
            try {
                SinkRuns.Apply a = SinkRuns.apply(ctx, Contender.TIDELINE, tidelineTopic, sizes.sinkRecords(),
                        new SinkRuns.Variant(true, 0));
                table.add(sinkRateNoGuard, Contender.TIDELINE, a.rate());
                table.add(sinkCpuNoGuard, Contender.TIDELINE, a.cpuSeconds());
                standIn(sinkRateNoGuard, sinkStandInCpuNoGuard, Contender.TIDELINE, run, a.standIn());
            } catch (RuntimeException e) {
                failed(sinkRateNoGuard, Contender.TIDELINE, e);
            }
            // One put() gets what one consumer poll returns (500 by default) and makes at most that many documents one
            // bulk write; the raw writer sends 1,000 per bulk. These rows give both sinks polls of the raw's size.
            if (raw != null) {
                table.add(sinkRateBigPoll, Contender.RAW, raw);
                table.add(sinkRateBigPollNoGuard, Contender.RAW, raw);
            }
            for (Contender who : connectorsInTurn(run)) {
                sinkBigPoll(sinkRateBigPoll, who, who == Contender.TIDELINE ? tidelineTopic : officialTopic, false);
            }
            sinkBigPoll(sinkRateBigPollNoGuard, Contender.TIDELINE, tidelineTopic, true);
        }
    }

    private void sinkBigPoll(Metric metric, Contender who, String topic, boolean guardOff) {
        try {
            table.add(metric, who, SinkRuns.apply(ctx, who, topic, sizes.sinkRecords(), new SinkRuns.Variant(guardOff, RawLimits.BULK))
                    .rate());
        } catch (RuntimeException e) {
            failed(metric, who, e);
        }
    }

    /**
     * Raw, then both connectors in turn, then Tideline's sink without its guard, then both connectors with their
     * producers' linger off. An untimed run of each connector's chain comes first: the drain's warm-up does not take
     * the paths of a paced trickle, and whoever went first in the timed runs paid for them (Tideline's first p50
     * was 15.7 and 17.4 ms against 8-9 ms after, in two runs of 2026-12-04).
     */
    private void latency() {
        if (sizes.warmUpRecords() > 0) {
            BenchContext.log("end-to-end latency warm-up: each connector's chain once, not measured");
            for (Contender who : List.of(Contender.TIDELINE, Contender.OFFICIAL)) {
                try {
                    LatencyRuns.run(ctx, who, sizes.latencyRate(), LATENCY_WARM_UP_SECONDS, LatencyRuns.Variant.DEFAULTS);
                } catch (RuntimeException e) {
                    table.note("Latency warm-up of " + who.label() + " failed (its first measured run may include it): " + e.getMessage());
                }
            }
        }
        LatencyRuns.Variant lingerZero = new LatencyRuns.Variant(false, true);
        for (int run = 1; run <= sizes.runs(); run++) {
            BenchContext.log("end-to-end latency, run " + run + " of " + sizes.runs());
            latencyRun(run, Contender.RAW, LatencyRuns.Variant.DEFAULTS, latencyP50, latencyP99);
            for (Contender who : connectorsInTurn(run)) {
                latencyRun(run, who, LatencyRuns.Variant.DEFAULTS, latencyP50, latencyP99);
            }
            // The sink's version sidecar is a second write per document: this row separates it from the rest of the chain.
            latencyRun(run, Contender.TIDELINE, new LatencyRuns.Variant(true, false), latencyNoGuardP50, latencyNoGuardP99);
            for (Contender who : connectorsInTurn(run)) {
                latencyRun(run, who, lingerZero, latencyLingerZeroP50, latencyLingerZeroP99);
            }
        }
    }

    private void latencyRun(int run, Contender who, LatencyRuns.Variant variant, Metric p50, Metric p99) {
        try {
            LatencyRuns.Latency l = LatencyRuns.run(ctx, who, sizes.latencyRate(), sizes.latencySeconds(), variant);
            table.add(p50, who, l.p50Ms());
            table.add(p99, who, l.p99Ms());
            if (who == Contender.RAW) {
                table.add(latencyNoGuardP50, who, l.p50Ms());
                table.add(latencyNoGuardP99, who, l.p99Ms());
                table.add(latencyLingerZeroP50, who, l.p50Ms());
                table.add(latencyLingerZeroP99, who, l.p99Ms());
            }
            if (l.achievedRate() < sizes.latencyRate() * 0.95) {
                table.note(String.format("%s%s latency run %d: the writer reached only %.0f changes/s", who.label(), variant.label(),
                        run, l.achievedRate()));
            }
        } catch (RuntimeException e) {
            failed(p50, who, e);
        }
    }

    /** One run per contender: a heap profile over a drain is a shape, not a noisy rate. */
    private void heap() {
        BenchContext.log("worker heap while draining " + sizes.heapBacklog());
        for (Contender who : List.of(Contender.TIDELINE, Contender.OFFICIAL)) {
            try {
                SourceRuns.Drain d = SourceRuns.drain(ctx, who, sizes.heapBacklog(), true);
                List<Double> samples = d.heapSamplesMb();
                double idle = samples.get(0);
                double max = samples.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                table.add(heapMax, who, max);
                table.add(heapGrowth, who, max - idle);
                table.note(who.label() + " heap after GC while draining (MB, every " + SourceRuns.HEAP_SAMPLE_MS + " ms, first = idle worker): "
                        + SourceRuns.rounded(samples));
            } catch (RuntimeException e) {
                failed(heapMax, who, e);
            }
        }
    }

    private void kafka() {
        for (int run = 1; run <= sizes.runs(); run++) {
            String topic = ctx.unique("producer");
            measure(producer, Contender.RAW, () -> RawLimits.kafkaProduce(ctx.stack.bootstrapServers(), topic, sizes.sinkRecords()));
        }
    }

    /** The stand-in's CPU beside the worker's, and a note when the stand-in, not the connector, limited the figure. */
    private void standIn(Metric figure, Metric cpu, Contender who, int run, StandInCpu.Share share) {
        table.add(cpu, who, share.cpuSeconds());
        String note = share.bottleneckNote(figure.label().trim() + ", " + who.label() + ", run " + run);
        if (note != null) {
            table.note(note);
            BenchContext.log(note);
        }
    }

    /**
     * Tideline first in odd runs, the official connector first in even ones: whoever goes first in a
     * fresh worker also pays for warming up Connect's own code paths.
     */
    private static List<Contender> connectorsInTurn(int run) {
        return run % 2 == 1 ? List.of(Contender.TIDELINE, Contender.OFFICIAL) : List.of(Contender.OFFICIAL, Contender.TIDELINE);
    }

    /** Runs one measurement into the table; its value, or null when it failed (recorded as such). */
    private Double measure(Metric metric, Contender who, DoubleSupplier run) {
        try {
            ctx.quiesce();
            double value = run.getAsDouble();
            table.add(metric, who, value);
            BenchContext.log(String.format("%s, %s: %s %s", metric.label().trim(), who.label(), ResultTable.number(value), metric.unit()));
            return value;
        } catch (RuntimeException e) {
            failed(metric, who, e);
            return null;
        }
    }

    private void failed(Metric metric, Contender who, RuntimeException e) {
        if (who == Contender.TIDELINE) {
            tidelineOk = false;
        }
        String why = e.getMessage() != null ? e.getMessage() : e.toString();
        table.fail(metric, who, why);
        BenchContext.log("FAILED " + metric.label().trim() + ", " + who.label() + ": " + why);
        if (!(e instanceof Progress.Stalled)) {
            e.printStackTrace(System.out);
        }
    }
}
