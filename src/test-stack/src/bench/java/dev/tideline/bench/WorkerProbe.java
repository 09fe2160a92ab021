package dev.tideline.bench;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The Connect worker JVM seen from outside: its CPU time, its heap after a full GC, and JFR
 * recordings. It attaches to the worker's PID (the test stack writes it to
 * {@code <work dir>/worker-0/worker-0.pid}) and starts the JDK's local JMX agent there, so the
 * worker needs no JMX option on its command line.
 */
final class WorkerProbe implements AutoCloseable {
    private final long pid;
    private final JMXConnector connector;
    private final MBeanServerConnection mbeans;
    private final MemoryMXBean memory;
    private final com.sun.management.OperatingSystemMXBean os;
    private final com.sun.management.ThreadMXBean threads;

    private WorkerProbe(long pid, JMXConnector connector) throws IOException {
        this.pid = pid;
        this.connector = connector;
        this.mbeans = connector.getMBeanServerConnection();
        this.memory = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
        this.os = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME,
                com.sun.management.OperatingSystemMXBean.class);
        this.threads = ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.THREAD_MXBEAN_NAME,
                com.sun.management.ThreadMXBean.class);
    }

    /** Attaches to worker 0 of the stack in {@code workDir}. */
    static WorkerProbe attach(Path workDir) {
        Path pidFile = workDir.resolve("worker-0").resolve("worker-0.pid");
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            String url;
            try {
                url = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            return new WorkerProbe(pid, JMXConnectorFactory.connect(new JMXServiceURL(url)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot attach to the Connect worker (pid file " + pidFile + ")", e);
        }
    }

    long pid() {
        return pid;
    }

    /** CPU time of the whole worker process (all threads, user + system), in seconds. */
    double cpuSeconds() {
        return os.getProcessCpuTime() / 1e9;
    }

    /**
     * Bytes the worker's live threads have allocated since each started, summed: the difference of two
     * readings is what a run allocated, less what threads that ended in between had allocated (a
     * source task's thread ends only when its connector is deleted, after the second reading).
     */
    long allocatedBytes() {
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, bytes); // -1: the thread ended between the two calls
        }
        return sum;
    }

    /** Runs a full GC in the worker and returns the heap then in use, in MB. */
    double heapAfterGcMb() {
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
    }

    /**
     * Starts a JFR recording written to {@code file} on stop: JFR's profile settings (execution samples
     * every 10 ms), or the .jfc file named by {@code -Dbench.jfr.settings} (finer sampling for short runs).
     */
    void startJfr(String name, Path file) {
        dcmd("jfrStart", "name=" + name, "settings=" + System.getProperty("bench.jfr.settings", "profile"),
                "filename=" + file.toAbsolutePath());
    }

    void stopJfr(String name) {
        dcmd("jfrStop", "name=" + name);
    }

    /** A diagnostic command (what {@code jcmd <pid> JFR.start ...} sends), through JMX. */
    private void dcmd(String operation, String... args) {
        try {
            mbeans.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), operation,
                    new Object[] {args}, new String[] {String[].class.getName()});
        } catch (Exception e) {
            throw new IllegalStateException(operation + " failed in the worker (pid " + pid + ")", e);
        }
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException e) {
            System.err.println("[bench] closing the JMX connection to the worker failed: " + e);
        }
    }
}
