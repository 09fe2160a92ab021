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
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands writes to an event loop in batches. A change to a channel with many subscribers is many
 * writes; sending each as its own task would wake the loop (a system call) once per subscriber.
 * Here the publisher queues them and the loop is woken once, writes them all in order and flushes
 * each connection once. One outbox per event loop; everything a connection sends goes through
 * it, so its frames keep their order.
 */
final class LoopOutbox implements Runnable {
    private record Pending(Channel socket, Object frame, ChannelFutureListener written) {
    }

    private static final int MAX_BATCH = 4096;

    private final EventLoop loop;
    private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();

    private LoopOutbox(EventLoop loop) {
        this.loop = loop;
    }

    /** The outboxes of one server's event loops. */
    static final class Registry {
        private final Map<EventLoop, LoopOutbox> outboxes = new ConcurrentHashMap<>();

        LoopOutbox of(EventLoop loop) {
            return outboxes.computeIfAbsent(loop, LoopOutbox::new);
        }
    }

    void write(Channel socket, Object frame, ChannelFutureListener written) {
        queue.add(new Pending(socket, frame, written));
        if (scheduled.compareAndSet(false, true)) {
            loop.execute(this);
        }
    }

    @Override
    public void run() {
        scheduled.set(false);
        Map<Channel, Boolean> touched = new IdentityHashMap<>();
        List<Channel> order = new ArrayList<>();
        int n = 0;
        // a bounded batch: a publisher that keeps queueing must not keep the loop from its sockets' reads and accepts
        for (Pending p; n < MAX_BATCH && (p = queue.poll()) != null; n++) {
            p.socket().write(p.frame()).addListener(p.written());
            if (touched.put(p.socket(), Boolean.TRUE) == null) {
                order.add(p.socket());
            }
        }
        order.forEach(Channel::flush);
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            loop.execute(this);
        }
    }
}
