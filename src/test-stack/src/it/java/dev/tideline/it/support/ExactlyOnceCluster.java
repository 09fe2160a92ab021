package dev.tideline.it.support;

/**
 * A one-worker Connect cluster with {@code exactly.once.source.support=enabled} (KIP-618): source
 * tasks write their records and their offsets in one producer transaction per batch. Kept apart
 * from the stack's main group because every worker of a group must have the same setting.
 */
public final class ExactlyOnceCluster {
    private final ConnectWorker worker;

    ExactlyOnceCluster(ConnectWorker worker) {
        this.worker = worker;
        worker.start();
    }

    public ConnectRest rest() {
        return new ConnectRest(worker.url());
    }

    /** kill -9: the open transaction is never committed; the restarted task fences it off and aborts it. */
    public void kill() {
        worker.kill();
    }

    /** Starts the worker again after {@link #kill()}: same port, group and storage topics. */
    public void start() {
        worker.start();
    }

    ConnectWorker worker() {
        return worker;
    }
}
