package dev.tideline.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU the MongoDB stand-ins use: they run in the benchmark's JVM, on mongo-java-server's Netty threads
 * ({@code mongo-server-*}), so their share is the thread CPU time of those threads. A figure is the stand-in's,
 * not the connector's, when the stand-in was busy for most of the run: its writes run one at a time, so one
 * busy core is all it can give ({@link #BOTTLENECK_SHARE}).
 */
final class StandInCpu {
    /** Stand-in CPU over wall time from which a run counts as limited by the stand-in. */
    static final double BOTTLENECK_SHARE = 0.8;
    private static final String THREAD_PREFIX = "mongo-server-";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> cpuNanosAtStart = cpuNanosByThread();
    private final long wallNanos0 = System.nanoTime();

    /** Starts measuring now; threads of servers started before count from here, of servers started after from their start; threads that end before stop() are left out. */
    static StandInCpu start() {
        return new StandInCpu();
    }

    /** What the stand-ins used since {@link #start()}; call it while they still run (a stopped thread's time is gone). */
    Share stop() {
        long used = 0;
        for (Map.Entry<Long, Long> thread : cpuNanosByThread().entrySet()) {
            used += thread.getValue() - cpuNanosAtStart.getOrDefault(thread.getKey(), 0L);
        }
        return new Share(used / 1e9, (System.nanoTime() - wallNanos0) / 1e9);
    }

    /**
     * @param cpuSeconds  stand-in CPU over the run
     * @param wallSeconds the run's length
     */
    record Share(double cpuSeconds, double wallSeconds) {
        double ofOneCore() {
            return wallSeconds <= 0 ? 0 : cpuSeconds / wallSeconds;
        }

        boolean bottleneck() {
            return ofOneCore() >= BOTTLENECK_SHARE;
        }

        /** A note for the table when the stand-in limited the figure, else null. */
        String bottleneckNote(String figure) {
            return bottleneck() ? String.format("STAND-IN BOUND: %s: the stand-in used %.1f CPU-s in %.1f s (%.0f%% of a core, its writes "
                    + "run one at a time): this figure measures the stand-in more than the connector.", figure, cpuSeconds,
                    wallSeconds, 100 * ofOneCore()) : null;
        }
    }

    private static Map<Long, Long> cpuNanosByThread() {
        Map<Long, Long> cpu = new HashMap<>();
        if (!THREADS.isThreadCpuTimeSupported()) {
            return cpu;
        }
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(THREAD_PREFIX)) {
                long nanos = THREADS.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) { // -1 once the thread ended
                    cpu.put(info.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }
}
