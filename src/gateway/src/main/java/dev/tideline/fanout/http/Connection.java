package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelListener;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.channel.Positions;
import dev.tideline.fanout.channel.ResumeCursor;
import dev.tideline.fanout.channel.ResumePlan;
import dev.tideline.fanout.channel.RoutedChange;
import dev.tideline.fanout.channel.StartPoint;
import dev.tideline.fanout.delivery.ByteBudget;
import dev.tideline.fanout.delivery.DisconnectReason;
import dev.tideline.fanout.quota.TenantQuotas;
import dev.tideline.fanout.resume.CatchUpExecutor;
import dev.tideline.fanout.resume.CatchUpTarget;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundInvoker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One subscriber connection, whatever the transport. It keeps, per channel, the Kafka positions it
 * has delivered up to (the event id a client resumes from, valid on any gateway), never delivers a
 * change below them (so a resume, a catch-up and the live stream can overlap without duplicates),
 * holds a channel's live changes while that channel is caught up, bounds the bytes waiting for the
 * socket, and closes the connection with a reason. Channel callbacks run under channel locks on the
 * consumer thread, catch-ups on their own threads: every method only enqueues. Frames are encoded
 * straight into the connection's {@link FrameBuffer} (the change's JSON, rendered once per channel,
 * copied in beside this connection's event id), which its event loop writes as one buffer per flush.
 */
abstract class Connection implements ChannelListener, CatchUpTarget, LoopOutbox.Source {
    /** How long a final disconnect event may take to reach the client before the socket is closed anyway. */
    private static final long GOODBYE_MILLIS = 1000;
    /** A quiet stream still sends its position this often, so proxies keep it and a dead peer is noticed. */
    static final long KEEPALIVE_MILLIS = 20_000;

    protected final Channel socket;
    private final LoopOutbox outbox;
    private final ChannelHub hub;
    private final ConsumerProgress progress;
    private final GatewayStats stats;
    private final ByteBudget budget;
    /** Shared by all connections: what the gateway holds for slow sockets altogether. */
    private final ByteBudget total;
    private final List<ChannelName> channels;
    private final Positions[] positions;
    private final boolean[] catchingUp;
    private final ArrayDeque<RoutedChange>[] waiting;
    private long waitingBytes;
    private final long subscribedAtMillis;
    private boolean closing;
    /** Frames not yet handed to the socket, and the budget bytes they hold. */
    private final FrameBuffer pending = new FrameBuffer();
    private long pendingReserved;
    /** Queued in the outbox: it will write {@link #pending}. */
    private boolean queued;
    /** The last frame in {@link #pending} says goodbye: the socket closes once it is written. */
    private boolean closeAfterWrite;
    /** The event id, rewritten for each frame. */
    private final StringBuilder id = new StringBuilder(64);

    @SuppressWarnings("unchecked")
    Connection(Channel socket, ChannelHub hub, GatewayStats stats, ByteBudget budget, ByteBudget total, List<ChannelName> channels,
               long subscribedAtMillis, LoopOutbox.Registry outboxes) {
        this.socket = socket;
        this.outbox = outboxes.of(socket.eventLoop());
        this.hub = hub;
        this.progress = hub.progress();
        this.stats = stats;
        this.budget = budget;
        this.total = total;
        this.channels = List.copyOf(channels);
        this.positions = new Positions[channels.size()];
        this.catchingUp = new boolean[channels.size()];
        this.waiting = new ArrayDeque[channels.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = new Positions();
            waiting[i] = new ArrayDeque<>();
        }
        this.subscribedAtMillis = subscribedAtMillis;
        stats.openConnections.incrementAndGet();
        socket.closeFuture().addListener(f -> {
            hub.unsubscribe(this, this.channels);
            stats.openConnections.decrementAndGet();
            synchronized (this) {
                closing = true;
                releaseWaiting();
            }
        });
    }

    /**
     * Subscribes each channel where it starts, and closes the connection when its token expires. A
     * channel's catch-up share of the tenant's quota goes back once it is known to need no Kafka
     * read, or once that read ends.
     */
    void start(List<StartPoint> starts, long tokenExpiresAtMillis, CatchUpExecutor catchUp, TenantQuotas.Lease lease) {
        long untilExpiry = Math.max(0, tokenExpiresAtMillis - System.currentTimeMillis());
        var expiry = socket.eventLoop().schedule(() -> disconnect(DisconnectReason.TOKEN_EXPIRED), untilExpiry, TimeUnit.MILLISECONDS);
        var keepalive = socket.eventLoop().scheduleAtFixedRate(this::keepalive, KEEPALIVE_MILLIS, KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS);
        // the timers must not keep a closed connection (and its subscriber) alive until the token expires
        socket.closeFuture().addListener(f -> {
            expiry.cancel(false);
            keepalive.cancel(false);
        });
        for (int i = 0; i < channels.size(); i++) {
            ResumePlan plan;
            try {
                plan = hub.subscribe(this, channels.get(i), starts.get(i));
            } catch (ChannelHub.ChannelsFullException e) {
                disconnect(DisconnectReason.OVERLOADED);
                break;
            }
            stats.resumed(plan.kind() == ResumePlan.Kind.UNRECOVERABLE ? "unrecoverable:" + plan.reason() : plan.wire());
            if (SubscriptionRequest.mayReadKafka(starts.get(i)) && plan.kind() != ResumePlan.Kind.KAFKA) {
                lease.releaseCatchUp();
            }
            switch (plan.kind()) {
                case LIVE -> { }
                case CACHE -> catchUp.fromCache(this, i, plan);
                case KAFKA -> {
                    if (!catchUp.fromKafka(this, i, channels.get(i), plan, lease::releaseCatchUp)) {
                        lease.releaseCatchUp();
                        stats.readBack("queue-full");
                        disconnect(DisconnectReason.UNAVAILABLE);
                    }
                }
                case UNRECOVERABLE -> unrecoverable(i, plan.reason(), plan.boundary());
            }
        }
        if (!socket.isActive()) {
            // closed before it was subscribed: the close listener ran too early to take it out
            hub.unsubscribe(this, channels);
        }
    }

    /** Appends the transport's frame for one event; {@code data} is JSON. */
    protected abstract void appendFrame(FrameBuffer out, String event, CharSequence id, byte[] data);

    /** Bytes of the frame {@link #appendFrame} writes. */
    protected abstract int frameSize(String event, int idLength, int dataLength);

    /** The frames waiting, as the one message written to the socket. */
    protected abstract ByteBuf takeBatch(FrameBuffer frames);

    /** Where batches are written (past any encoder: they are already the transport's bytes). */
    protected abstract ChannelOutboundInvoker out();

    @Override
    public synchronized void registered(ChannelName channel, ResumePlan plan) {
        int i = channels.indexOf(channel);
        positions[i] = plan.positions().copy();
        catchingUp[i] = plan.kind() != ResumePlan.Kind.LIVE;
        send("subscribed", "{\"channel\":\"" + channel + "\",\"resume\":\"" + plan.wire() + "\"}");
        if (!catchingUp[i]) {
            send("live", "{\"channel\":\"" + channel + "\"}");
        }
    }

    @Override
    public synchronized void change(RoutedChange change) {
        int i = channels.indexOf(change.channel());
        if (i < 0 || closing) {
            return;
        }
        if (catchingUp[i]) {
            // held until the catch-up reaches where live changes began, within the connection's bound
            if (waitingBytes + change.sizeBytes() > budget.maxBytes() || !total.tryReserve(change.sizeBytes())) {
                disconnect(waitingBytes + change.sizeBytes() > budget.maxBytes() ? DisconnectReason.SLOW_CONSUMER : DisconnectReason.OVERLOADED);
                return;
            }
            waitingBytes += change.sizeBytes();
            waiting[i].addLast(change);
            return;
        }
        deliverNow(i, change);
    }

    /** Sends a change unless the subscriber's position is already past it. */
    private boolean deliverNow(int i, RoutedChange change) {
        if (change.offset() < positions[i].get(change.source())) {
            return true;
        }
        positions[i].set(change.source(), change.offset() + 1);
        if (send("change", change.json())) {
            stats.deliveries.increment();
            return true;
        }
        return false;
    }

    @Override
    public synchronized boolean deliver(int channel, RoutedChange change) {
        return !closing && deliverNow(channel, change) && !closing;
    }

    @Override
    public synchronized void advance(int channel, org.apache.kafka.common.TopicPartition tp, long next) {
        positions[channel].advance(tp, next);
    }

    @Override
    public synchronized void finish(int channel, Map<org.apache.kafka.common.TopicPartition, Long> boundary) {
        boundary.forEach(positions[channel]::advance);
        goLive(channel);
    }

    @Override
    public synchronized void unrecoverable(int channel, String reason, Map<org.apache.kafka.common.TopicPartition, Long> boundary) {
        boundary.forEach(positions[channel]::advance);
        send("unrecoverable", "{\"channel\":\"" + channels.get(channel) + "\",\"reason\":\"" + reason + "\"}");
        goLive(channel);
    }

    private void goLive(int i) {
        catchingUp[i] = false;
        for (RoutedChange c; (c = waiting[i].pollFirst()) != null; ) {
            waitingBytes -= c.sizeBytes();
            total.release(c.sizeBytes());
            deliverNow(i, c);
        }
        send("live", "{\"channel\":\"" + channels.get(i) + "\"}");
    }

    private void releaseWaiting() {
        for (ArrayDeque<RoutedChange> w : waiting) {
            for (RoutedChange c; (c = w.pollFirst()) != null; ) {
                total.release(c.sizeBytes());
            }
        }
        waitingBytes = 0;
    }

    @Override
    public boolean isOpen() {
        return socket.isActive() && !closingNow();
    }

    private synchronized boolean closingNow() {
        return closing;
    }

    @Override
    public long pendingBytes() {
        return budget.pendingBytes();
    }

    @Override
    public long queueMaxBytes() {
        return budget.maxBytes();
    }

    @Override
    public void abort(DisconnectReason reason) {
        disconnect(reason);
    }

    /**
     * A position event, in place of a bare keep-alive: a live channel's positions move up to where the
     * consumer is, so a quiet channel's cursor stays close to the head and a resume reads little.
     */
    private synchronized void keepalive() {
        if (closing) {
            return;
        }
        for (int i = 0; i < channels.size(); i++) {
            if (!catchingUp[i]) {
                for (org.apache.kafka.common.TopicPartition tp : positions[i].known().keySet()) {
                    positions[i].advanceKnown(tp, progress.next(tp));
                }
            }
        }
        CharSequence cursor = cursor();
        byte[] data = {'{', '}'};
        int size = frameSize("position", cursor.length(), data.length);
        // a keep-alive never cuts a client off: skipped when its queue is full
        if (budget.tryReserve(size)) {
            if (!total.tryReserve(size)) {
                budget.release(size);
                return;
            }
            enqueue("position", cursor, data, size);
        }
    }

    /** Queues a transport control frame (a WebSocket pong) within the connection's budget. */
    synchronized void sendControl(Object controlFrame, int size) {
        if (closing) {
            return;
        }
        if (!budget.tryReserve(size)) {
            disconnect(DisconnectReason.SLOW_CONSUMER);
            return;
        }
        outbox.write(socket, controlFrame, f -> budget.release(size));
    }

    /** The event id as of now; valid until the next call. */
    private CharSequence cursor() {
        id.setLength(0);
        ResumeCursor.appendTo(id, subscribedAtMillis, channels, positions);
        return id;
    }

    private boolean send(String event, String json) {
        return send(event, json.getBytes(StandardCharsets.UTF_8));
    }

    private boolean send(String event, byte[] data) {
        if (closing) {
            return false;
        }
        CharSequence cursor = cursor();
        int size = frameSize(event, cursor.length(), data.length);
        if (!budget.tryReserve(size)) {
            disconnect(DisconnectReason.SLOW_CONSUMER);
            return false;
        }
        if (!total.tryReserve(size)) {
            budget.release(size);
            disconnect(DisconnectReason.OVERLOADED);
            return false;
        }
        enqueue(event, cursor, data, size);
        return true;
    }

    /** Appends a frame holding {@code reserved} budget bytes; the outbox writes it with the others at its next batch. */
    private void enqueue(String event, CharSequence cursor, byte[] data, int reserved) {
        appendFrame(pending, event, cursor, data);
        pendingReserved += reserved;
        if (!queued) {
            queued = true;
            outbox.ready(this);
        }
    }

    /**
     * Writes the frames waiting as one buffer; their budget bytes go back once the socket has taken them.
     * Written outside the lock: a failed write closes the socket at once, and closing takes the channels' locks.
     */
    @Override
    public Channel writePending() {
        ByteBuf batch;
        long reserved;
        boolean close;
        synchronized (this) {
            queued = false;
            if (pending.isEmpty()) {
                return null;
            }
            batch = takeBatch(pending);
            reserved = pendingReserved;
            pendingReserved = 0;
            close = closeAfterWrite;
        }
        ChannelFuture written = out().write(batch);
        if (reserved > 0) {
            written.addListener(f -> {
                budget.release(reserved);
                total.release(reserved);
            });
        }
        if (close) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        return socket;
    }

    /** Sends a final {@code disconnect} event with the reason (outside the budget) and closes. */
    synchronized void disconnect(DisconnectReason reason) {
        if (closing || !socket.isActive()) {
            return;
        }
        closing = true;
        releaseWaiting();
        stats.disconnected(reason.wire());
        byte[] data = ("{\"reason\":\"" + reason.wire() + "\"}").getBytes(StandardCharsets.UTF_8);
        closeAfterWrite = true;
        enqueue("disconnect", cursor(), data, 0);
        // a client that reads nothing never takes the goodbye: close regardless
        socket.eventLoop().schedule(() -> socket.close(), GOODBYE_MILLIS, TimeUnit.MILLISECONDS);
    }

}
