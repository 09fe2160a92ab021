package dev.tideline.fanout.delivery;

/** Why the gateway closed a connection; the wire word is sent in the final {@code disconnect} event. */
public enum DisconnectReason {
    /** Its queue went over {@code client.queue.max.bytes}: it reads slower than changes arrive. */
    SLOW_CONSUMER("slow-consumer"),
    /** Its token's {@code exp} passed: reconnect with a fresh token. */
    TOKEN_EXPIRED("token-expired"),
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
