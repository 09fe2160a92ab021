package dev.tideline.bench;

import de.bwaldvogel.mongo.bson.Document;
import dev.tideline.standin.AwaitingMemoryBackend;
import io.netty.channel.Channel;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The source stand-in of a copy, noting (in the benchmark JVM's clock) when a client first asked for the
 * documents of {@code bench.c}: a {@code find}, or an {@code aggregate} that is not a change stream. A copy's
 * rate runs from there, so that the connector's start-up is left out but its reading is not (the official
 * connector reads the whole collection in one reply before it sends its first record).
 */
final class FirstReadBackend extends AwaitingMemoryBackend {
    private final AtomicLong firstReadNanos = new AtomicLong();

    /** System.nanoTime of the first read of {@code bench.c}'s documents, or 0 before it. */
    long firstReadNanos() {
        return firstReadNanos.get();
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        if (firstReadNanos.get() == 0 && ConnectorConfigs.DB.equals(databaseName) && readsDocuments(command, query)) {
            firstReadNanos.compareAndSet(0, System.nanoTime());
        }
        return super.handleCommand(channel, databaseName, command, query);
    }

    private static boolean readsDocuments(String command, Document query) {
        if (!ConnectorConfigs.COLL.equals(query.get(command))) {
            return false;
        }
        if (command.equalsIgnoreCase("find")) {
            return true;
        }
        if (command.equalsIgnoreCase("aggregate") && query.get("pipeline") instanceof List<?> pipeline) {
            return pipeline.isEmpty() || !(pipeline.get(0) instanceof Document first && first.containsKey("$changeStream"));
        }
        return false;
    }
}
