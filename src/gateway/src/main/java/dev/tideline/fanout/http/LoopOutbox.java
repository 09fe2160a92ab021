package dev.tideline.fanout.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands writes to an event loop in batches. A change to a channel with many subscribers is many
 * writes; sending each as its own task would wake the loop (a system call) once per subscriber.
 * Here a connection with frames waiting queues itself once, the loop is woken once per batching
 * window ({@code client.flush.window.ms}; 0: as soon as it is free), writes each connection's frames
 * as one buffer and flushes each connection once. One outbox per event loop; everything a
 * connection sends goes through it, so its frames keep their order.
 */
final class LoopOutbox implements Runnable {
    /** Something with bytes waiting for its socket. */
    interface Source {
        /** Writes (without flushing) what it has waiting; its socket, or null when it had nothing. Runs on the loop. */
        Channel writePending();
    }

    private static final int MAX_BATCH = 4096;

    private final EventLoop loop;
    private final long windowNanos;
    private final Queue<Source> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    private LoopOutbox(EventLoop loop, long windowNanos) {
        this.loop = loop;
        this.windowNanos = windowNanos;
    }

    /** The outboxes of one server's event loops. */
    static final class Registry {
        private final Map<EventLoop, LoopOutbox> outboxes = new ConcurrentHashMap<>();
        private final long windowNanos;

        /** @param windowMillis how long the first frame waits for others before the loop writes them all (0: no wait) */
        Registry(long windowMillis) {
            this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
        }

        LoopOutbox of(EventLoop loop) {
            return outboxes.computeIfAbsent(loop, l -> new LoopOutbox(l, windowNanos));
        }
    }

    /** The source will be asked to write at the loop's next batch; a source queues itself once until then. */
    void ready(Source source) {
        queue.add(source);
        if (scheduled.compareAndSet(false, true)) {
            if (windowNanos > 0) {
                loop.schedule(this, windowNanos, TimeUnit.NANOSECONDS);
            } else {
                loop.execute(this);
            }
        }
    }

    /** One frame of its own (a control frame), in order with the sources queued before it. */
    void write(Channel socket, Object frame, ChannelFutureListener written) {
        ready(() -> {
            socket.write(frame).addListener(written);
            return socket;
        });
    }

    @Override
    public void run() {
        scheduled.set(false);
        Map<Channel, Boolean> touched = new IdentityHashMap<>();
        List<Channel> order = new ArrayList<>();
        int n = 0;
        // a bounded batch: a publisher that keeps queueing must not keep the loop from its sockets' reads and accepts
        for (Source s; n < MAX_BATCH && (s = queue.poll()) != null; n++) {
            Channel socket = s.writePending();
            if (socket != null && touched.put(socket, Boolean.TRUE) == null) {
                order.add(socket);
            }
        }
        order.forEach(Channel::flush);
        // what is left was already waiting: no new window for it
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            loop.execute(this);
        }
    }
}
