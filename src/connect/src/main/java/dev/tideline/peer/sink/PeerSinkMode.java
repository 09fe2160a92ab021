package dev.tideline.peer.sink;

import dev.tideline.sink.front.PeerMode;
import org.apache.kafka.connect.connector.Task;

/** Registered in {@code META-INF/services}: the sink's connector runs {@link PeerSinkTask} in peer mode. */
public final class PeerSinkMode implements PeerMode {
    @Override
    public Class<? extends Task> taskClass() {
        return PeerSinkTask.class;
    }
}
