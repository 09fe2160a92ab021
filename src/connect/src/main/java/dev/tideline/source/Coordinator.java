package dev.tideline.source;

import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's coordinator thread: discovery, and the decisions that need a round trip (a lost-history
 * policy), each retried with back-off until it is carried out. One thread, so those decisions never
 * race each other.
 */
final class Coordinator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

    /** Work on the coordinator thread. */
    interface Action {
        void run() throws InterruptedException;
    }

    private final ScheduledExecutorService executor;
    /** Where a refusal of the task's credentials goes: the task fails with it. */
    private final Consumer<ConnectException> fail;
    private volatile boolean closed;

    Coordinator(TaskThreads threads, Consumer<ConnectException> fail) {
        this.executor = Executors.newSingleThreadScheduledExecutor(threads.factory("discovery"));
        this.fail = fail;
    }

    boolean closed() {
        return closed;
    }

    /** Runs {@code action} on the coordinator thread after {@code delayMs}. */
    void schedule(Action action, long delayMs) {
        if (closed) {
            return;
        }
        executor.schedule(() -> {
            try {
                action.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, delayMs, TimeUnit.MILLISECONDS);
    }

    /** A decision that needs a round trip: retried with back-off until it is carried out. */
    void carryOut(String what, Action action) {
        carryOut(what, action, new Backoff(1_000, 30_000), 0);
    }

    private void carryOut(String what, Action action, Backoff backoff, long delayMs) {
        schedule(() -> {
            try {
                action.run();
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                    fail.accept(new ConnectException("The source refused the task's credentials while carrying out " + what + ": "
                            + e.getMessage(), e));
                    return;
                }
                long delay = backoff.next();
                log.warn("Could not carry out {} yet (attempt {}): {}; again in {} ms", LogText.message(what),
                        backoff.attempts(), LogText.message(e.toString()), delay);
                carryOut(what, action, backoff, delay);
            }
        }, delayMs);
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
    }
}
