package dev.tideline.fanout.delivery;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The byte bound of one connection's outgoing queue: bytes handed to the socket but not yet
 * written. A reservation that would exceed the bound fails, and the connection is then closed as
 * a slow consumer rather than allowed to hold memory (or slow the publisher) without limit.
 */
public final class ByteBudget {
    private final long maxBytes;
    private final AtomicLong pending = new AtomicLong();

    public ByteBudget(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("a queue bound must be > 0 bytes, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /** Takes {@code bytes} from the budget; false (and nothing taken) when they do not fit. */
    public boolean tryReserve(long bytes) {
        while (true) {
            long now = pending.get();
            if (now + bytes > maxBytes) {
                return false;
            }
            if (pending.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back bytes once the socket has taken them. */
    public void release(long bytes) {
        pending.addAndGet(-bytes);
    }

    public long pendingBytes() {
        return pending.get();
    }

    public long maxBytes() {
        return maxBytes;
    }
}
