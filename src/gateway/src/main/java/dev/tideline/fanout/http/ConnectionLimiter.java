package dev.tideline.fanout.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Caps open connections, in all and per client address. Thread-safe. */
public final class ConnectionLimiter {
    public enum Verdict { ACCEPTED, TOO_MANY, TOO_MANY_FROM_ADDRESS }

    private final int maxTotal;
    private final int maxPerAddress;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perAddress = new ConcurrentHashMap<>();

    public ConnectionLimiter(int maxTotal, int maxPerAddress) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    /** Counts a new connection if it fits; only an ACCEPTED one must be {@link #release}d. */
    public Verdict tryAcquire(String address) {
        if (total.incrementAndGet() > maxTotal) {
            total.decrementAndGet();
            return Verdict.TOO_MANY;
        }
        boolean[] fits = {false};
        perAddress.compute(address, (k, n) -> {
            AtomicInteger count = n == null ? new AtomicInteger() : n;
            if (count.get() < maxPerAddress) {
                count.incrementAndGet();
                fits[0] = true;
            }
            return count.get() == 0 ? null : count;
        });
        if (!fits[0]) {
            total.decrementAndGet();
            return Verdict.TOO_MANY_FROM_ADDRESS;
        }
        return Verdict.ACCEPTED;
    }

    public void release(String address) {
        total.decrementAndGet();
        perAddress.computeIfPresent(address, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    public int open() {
        return total.get();
    }

    public int openFrom(String address) {
        AtomicInteger n = perAddress.get(address);
        return n == null ? 0 : n.get();
    }
}
