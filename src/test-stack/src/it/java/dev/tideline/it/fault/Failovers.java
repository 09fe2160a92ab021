package dev.tideline.it.fault;

import dev.tideline.standin.MongoFixture;
import dev.tideline.standin.ReplicaSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Primary step-downs every few seconds (1 to 4, random by the seed) on the in-process replica sets it is given, taken
 * in turn, until closed; every fourth is the next step of a rolling upgrade instead: the primary steps down and then
 * restarts, closing its connections and cursors (the drivers' change streams resume elsewhere).
 */
final class Failovers implements AutoCloseable {
    private final List<MongoFixture> replicaSets;
    private final Random random;
    private final AtomicInteger stepDowns = new AtomicInteger();
    private final AtomicInteger restarts = new AtomicInteger();
    private final Thread thread;
    private final long firstMillis;
    private volatile boolean running = true;

    /** The first step-down {@code firstMillis} after this starts (0: at random, as the others). */
    Failovers(List<MongoFixture> replicaSets, long seed, long firstMillis) {
        for (MongoFixture f : replicaSets) {
            if (f.replicaSet().isEmpty()) {
                throw new IllegalArgumentException("step-downs on demand need the in-process replica set, not " + f);
            }
        }
        this.replicaSets = List.copyOf(replicaSets);
        this.random = new Random(seed);
        this.firstMillis = firstMillis;
        this.thread = new Thread(this::run, "tideline-failovers");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        int n = 0;
        while (running) {
            try {
                Thread.sleep(n == 0 && firstMillis > 0 ? firstMillis : 1_000 + random.nextInt(3_000));
            } catch (InterruptedException e) {
                return;
            }
            if (!running) {
                return;
            }
            MongoFixture target = replicaSets.get(n % replicaSets.size());
            ReplicaSet set = target.replicaSet().orElseThrow();
            if (++n % 4 == 0) {
                set.restart(set.primary());
                restarts.incrementAndGet();
            } else {
                target.stepDown();
            }
            stepDowns.incrementAndGet();
        }
    }

    /** Step-downs so far, restarts of the stepped-down primary included. */
    int stepDowns() {
        return stepDowns.get();
    }

    String describe() {
        return stepDowns.get() + " primary step-downs (" + restarts.get() + " of them followed by the old primary's restart)";
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
