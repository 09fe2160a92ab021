package dev.tideline.fanout.resume;

import dev.tideline.fanout.delivery.DisconnectReason;

/**
 * Sends a catch-up at the pace the subscriber reads: waits while more than half of its queue bound
 * is pending; a subscriber that takes nothing for {@code stallMillis} is cut off as a slow consumer.
 */
final class Pacer {
    private final long stallMillis;

    Pacer(long stallMillis) {
        this.stallMillis = stallMillis;
    }

    boolean awaitRoom(CatchUpTarget target) {
        long deadline = System.currentTimeMillis() + stallMillis;
        while (target.isOpen() && target.pendingBytes() > target.queueMaxBytes() / 2) {
            if (System.currentTimeMillis() > deadline) {
                target.abort(DisconnectReason.SLOW_CONSUMER);
                return false;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return target.isOpen();
    }
}
