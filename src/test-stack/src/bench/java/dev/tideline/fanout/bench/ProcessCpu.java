package dev.tideline.fanout.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** Another process's CPU time (user + system), from Linux's /proc. */
final class ProcessCpu {
    /** USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux (sysconf(_SC_CLK_TCK)). */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {
    }

    /** CPU nanoseconds the process used so far, or -1 where /proc has no such process. */
    static long nanos(long pid) {
        long user = field(pid, 11);
        long system = field(pid, 12);
        return user < 0 || system < 0 ? -1 : user + system;
    }

    /** CPU nanoseconds the process spent in the kernel (system calls: the sockets' writes), or -1. */
    static long systemNanos(long pid) {
        return field(pid, 12);
    }

    private static long field(long pid, int index) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // the command name (field 2) may hold spaces: count the fields after its closing parenthesis
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[index]) * (1_000_000_000L / TICKS_PER_SECOND); // 11, 12: utime, stime (fields 14, 15)
        } catch (Exception e) {
            return -1;
        }
    }
}
