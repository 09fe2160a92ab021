package dev.tideline.verify.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * What a benchmark child JVM used, printed as one parsable line before it exits. The figure that
 * shows whether memory grows with the collection is the heap AFTER each collection (what is live),
 * its maximum over the run; the peak heap used mostly shows how far the collector let garbage pile up.
 */
final class ChildStats {
    static final String PREFIX = "CHILD-STATS ";
    private static final AtomicLong MAX_AFTER_GC = new AtomicLong();

    private ChildStats() {
    }

    /** Starts watching every garbage collection (call first thing in main). */
    static void watch() {
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream().filter(p -> p.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((n, handback) -> {
                if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                    long used = 0;
                    for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                        if (heapPools.contains(e.getKey())) {
                            used += e.getValue().getUsed();
                        }
                    }
                    MAX_AFTER_GC.accumulateAndGet(used, Math::max);
                }
            }, null, null);
        }
    }

    /** Max heap after a collection, peak heap used, peak resident set (Linux), the heap's maximum, CPU seconds. */
    static String line() {
        long peakHeap = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage peak = pool.getPeakUsage();
            if (pool.getType() == MemoryType.HEAP && peak != null) {
                peakHeap += peak.getUsed();
            }
        }
        long cpuNanos = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        return PREFIX + "maxHeapAfterGcMB=" + MAX_AFTER_GC.get() / (1 << 20) + " peakHeapUsedMB=" + peakHeap / (1 << 20)
                + " maxHeapMB=" + Runtime.getRuntime().maxMemory() / (1 << 20) + " peakRssMB=" + peakRssMb()
                + " cpuSeconds=" + String.format(java.util.Locale.ROOT, "%.1f", cpuNanos / 1e9);
    }

    private static long peakRssMb() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmHWM:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1; // not Linux: the figure is left out
        }
        return -1;
    }
}
