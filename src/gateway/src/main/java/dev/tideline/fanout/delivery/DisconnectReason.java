package dev.tideline.fanout.delivery;

/** Why the gateway closed a connection; the wire word is sent in the final {@code disconnect} event. */
public enum DisconnectReason {
    /** Its queue went over {@code client.queue.max.bytes}: it reads slower than changes arrive. */
    SLOW_CONSUMER("slow-consumer"),
    /**
     * The gateway as a whole holds {@code client.queue.total.max.bytes} for sockets that lag: the
     * connection that would exceed it is closed (it resumes with Last-Event-ID).
     */
    OVERLOADED("overloaded"),
    /** Its token's {@code exp} passed: reconnect with a fresh token. */
    TOKEN_EXPIRED("token-expired"),
    /** The gateway cannot read Kafka to catch the client up (or has too many catch-ups queued): retry later. */
    UNAVAILABLE("unavailable"),
    /** The gateway is stopping. */
    SHUTDOWN("shutdown");

    private final String wire;

    DisconnectReason(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
