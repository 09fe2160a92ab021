package dev.tideline.fanout.resume;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Work waiting for the Kafka readers, bounded in all, handed out one tenant at a time in turn:
 * a tenant with many catch-ups queued delays another tenant's by at most one of its own per turn,
 * where a first-come queue would make the other wait behind all of them.
 */
final class TenantTurns<T> {
    private final int capacity;
    /** Tenants in the order of their turn, each with its waiting work, oldest first. */
    private final LinkedHashMap<String, ArrayDeque<T>> waiting = new LinkedHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private int size;

    TenantTurns(int capacity) {
        this.capacity = capacity;
    }

    /** Queues {@code work} of {@code tenant}; false when {@code capacity} items wait already. */
    boolean offer(String tenant, T work) {
        lock.lock();
        try {
            if (size >= capacity) {
                return false;
            }
            waiting.computeIfAbsent(tenant, t -> new ArrayDeque<>()).addLast(work);
            size++;
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The oldest work of the tenant whose turn it is (that tenant's next turn comes after the others'), or null after the time-out. */
    T poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (size == 0) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            Iterator<Map.Entry<String, ArrayDeque<T>>> turn = waiting.entrySet().iterator();
            Map.Entry<String, ArrayDeque<T>> next = turn.next();
            turn.remove();
            T work = next.getValue().pollFirst();
            if (!next.getValue().isEmpty()) {
                waiting.put(next.getKey(), next.getValue()); // to the back of the line
            }
            size--;
            return work;
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }
}
