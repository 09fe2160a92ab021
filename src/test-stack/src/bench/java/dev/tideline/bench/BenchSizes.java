package dev.tideline.bench;

/**
 * How much work each measurement does; {@code -Dbench.<name>=<value>} overrides a default (the
 * defaults are the full sizes). {@code -Dbench.quick=true} divides the document counts
 * by 10 and runs once, for trying the benchmark out; its figures say so. {@link #smoke()} is the
 * smallest run that still takes every path, for the smoke test of the default suite.
 */
record BenchSizes(int runs, int streamBacklog, int backfillSmall, int backfillLarge, int sinkRecords,
                  int latencyRate, int latencySeconds, int heapBacklog, int warmUpRecords, long settleMillis) {
    /** One small untimed round of each connector first (0: none, {@code -Dbench.warmup=false}). */
    static final int WARM_UP_RECORDS = 5_000;
    /**
     * After a deleted connector is gone from the worker, the pause before the next measurement, so that its tasks'
     * teardown does not weigh on it; the smoke test measures nothing and waits only for the connector to be gone.
     */
    static final long SETTLE_MILLIS = 2_000;

    static BenchSizes fromSystemProperties() {
        boolean quick = Boolean.getBoolean("bench.quick");
        int div = quick ? 10 : 1;
        return new BenchSizes(
                Integer.getInteger("bench.runs", quick ? 1 : 3),
                Integer.getInteger("bench.stream.backlog", 50_000 / div),
                Integer.getInteger("bench.backfill.small", 20_000 / div),
                Integer.getInteger("bench.backfill.large", 200_000 / div),
                Integer.getInteger("bench.sink.records", 50_000 / div),
                Integer.getInteger("bench.latency.rate", 2_000),
                Integer.getInteger("bench.latency.seconds", quick ? 5 : 10),
                Integer.getInteger("bench.heap.backlog", 200_000 / div),
                "false".equals(System.getProperty("bench.warmup")) ? 0 : WARM_UP_RECORDS, SETTLE_MILLIS);
    }

    /** Tiny sizes, one run, no warm-up: every part and contender once, in seconds each; figures that mean nothing. */
    static BenchSizes smoke() {
        return new BenchSizes(1, 300, 200, 400, 300, 200, 1, 300, 0, 0);
    }

    boolean isFull() {
        return runs >= 3 && streamBacklog >= 50_000 && backfillSmall >= 20_000 && backfillLarge >= 200_000
                && sinkRecords >= 50_000 && latencyRate >= 2_000 && latencySeconds >= 10 && heapBacklog >= 100_000;
    }

    String describe() {
        return String.format("%d run(s) per figure; streaming backlog %,d x 1 KB; backfill %,d and %,d docs; sink %,d records; "
                        + "latency at %,d changes/s for %d s; heap while draining %,d",
                runs, streamBacklog, backfillSmall, backfillLarge, sinkRecords, latencyRate, latencySeconds, heapBacklog);
    }
}
