package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.health.CaptureGauges;
import dev.tideline.source.stream.DatabaseStream;
import java.util.Map;
import java.util.function.IntSupplier;

/** What a task holds, read live for its JMX gauges ({@link CaptureGauges}). */
record TaskGauges(Map<String, DatabaseStream> streams, CollectionCopies copies, Map<Namespace, CollectionCapture> collections,
                  TaskThreads taskThreads, IntSupplier connections) implements CaptureGauges {
    @Override
    public int changeStreams() {
        return (int) streams.values().stream().filter(DatabaseStream::isOpen).count();
    }

    @Override
    public int backfillsRunning() {
        return copies.running();
    }

    @Override
    public int backfillsQueued() {
        return copies.queued();
    }

    @Override
    public int streamedCollections() {
        return streams.values().stream().mapToInt(DatabaseStream::members).sum();
    }

    @Override
    public String[] parkedCollections() {
        return collections.values().stream().filter(c -> c.state() == CollectionCapture.State.PARKED)
                .map(c -> c.ns().fullName()).sorted().toArray(String[]::new);
    }

    @Override
    public int threads() {
        return taskThreads.alive();
    }

    @Override
    public int mongoConnections() {
        return connections.getAsInt();
    }
}
