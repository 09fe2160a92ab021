package dev.tideline.source;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts every thread a source task runs (daemon, named {@code tideline-<role>-<n>}) and counts those
 * still alive, so the task's bound is visible (JMX {@code Threads}) rather than assumed.
 */
final class TaskThreads {
    private final String task;
    private final Set<Thread> started = ConcurrentHashMap.newKeySet();
    private final AtomicInteger counter = new AtomicInteger();

    TaskThreads(String task) {
        this.task = task;
    }

    /** A factory whose threads are named {@code tideline-<role>-<task>-<n>}. */
    ThreadFactory factory(String role) {
        return r -> start(r, role, false);
    }

    Thread start(Runnable r, String role, boolean run) {
        Thread t = new Thread(() -> {
            try {
                r.run();
            } finally {
                started.remove(Thread.currentThread());
            }
        }, "tideline-" + role + "-" + task + "-" + counter.incrementAndGet());
        t.setDaemon(true);
        started.add(t);
        if (run) {
            t.start();
        }
        return t;
    }

    int alive() {
        int n = 0;
        for (Thread t : started) {
            if (t.isAlive()) {
                n++;
            }
        }
        return n;
    }
}
