package dev.tideline.fanout.http;

import dev.tideline.fanout.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelListener;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.EventCursor;
import dev.tideline.fanout.channel.ResumePoint;
import dev.tideline.fanout.channel.SequencedChange;
import dev.tideline.fanout.delivery.ByteBudget;
import dev.tideline.fanout.delivery.DisconnectReason;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One subscriber connection, whatever the transport: tracks the last seq sent per channel (the
 * event id a client resumes from), bounds the bytes waiting for the socket, and closes the
 * connection with a reason. Channel callbacks run under channel locks on the consumer thread or
 * the event loop, so every method only enqueues.
 */
abstract class Connection implements ChannelListener {
    /** How long a final disconnect event may take to reach the client before the socket is closed anyway. */
    private static final long GOODBYE_MILLIS = 1000;
    /** A quiet stream still sends something this often, so proxies keep it and a dead peer is noticed. */
    private static final long KEEPALIVE_MILLIS = 20_000;

    protected final Channel socket;
    private final LoopOutbox outbox;
    private final ChannelHub hub;
    private final GatewayStats stats;
    private final ByteBudget budget;
    /** Shared by all connections: what the gateway holds for slow sockets altogether. */
    private final ByteBudget total;
    private final List<ChannelName> channels;
    private final long[] seqs;
    private String epoch;
    private boolean closing;
    private java.util.Map<ChannelName, ResumePoint> resume = java.util.Map.of();

    Connection(Channel socket, ChannelHub hub, GatewayStats stats, ByteBudget budget, ByteBudget total, List<ChannelName> channels,
                  LoopOutbox.Registry outboxes) {
        this.socket = socket;
        this.outbox = outboxes.of(socket.eventLoop());
        this.hub = hub;
        this.stats = stats;
        this.budget = budget;
        this.total = total;
        this.channels = List.copyOf(channels);
        this.seqs = new long[channels.size()];
        this.epoch = hub.epoch();
        stats.openConnections.incrementAndGet();
        socket.closeFuture().addListener(f -> {
            hub.unsubscribe(this, this.channels);
            stats.openConnections.decrementAndGet();
        });
    }

    /** Subscribes, and closes the connection when its token expires. */
    void start(java.util.Map<ChannelName, ResumePoint> resumeFrom, long tokenExpiresAtMillis) {
        synchronized (this) {
            resume = resumeFrom;
        }
        long untilExpiry = Math.max(0, tokenExpiresAtMillis - System.currentTimeMillis());
        var expiry = socket.eventLoop().schedule(() -> disconnect(DisconnectReason.TOKEN_EXPIRED), untilExpiry, TimeUnit.MILLISECONDS);
        var keepalive = socket.eventLoop().scheduleAtFixedRate(this::keepalive, KEEPALIVE_MILLIS, KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS);
        // the timers must not keep a closed connection (and its subscriber) alive until the token expires
        socket.closeFuture().addListener(f -> {
            expiry.cancel(false);
            keepalive.cancel(false);
        });
        synchronized (this) {
            // until a channel's subscribed event, the cursor says "live from here" for it
            for (int i = 0; i < channels.size(); i++) {
                seqs[i] = hub.currentSeq(channels.get(i));
            }
        }
        hub.subscribe(this, channels, resumeFrom);
        if (!socket.isActive()) {
            // closed before it was subscribed: the close listener ran too early to take it out
            hub.unsubscribe(this, channels);
        }
    }

    /** The transport's frame for one event; {@code data} is JSON. */
    protected abstract Object frame(String event, String id, byte[] data);

    /** A frame that carries nothing (an SSE comment, a WebSocket ping). */
    protected abstract Object keepaliveFrame();

    private synchronized void keepalive() {
        if (!closing && budget.tryReserve(16)) {
            outbox.write(socket, keepaliveFrame(), f -> budget.release(16));
        }
    }

    protected abstract int frameSize(String event, String id, byte[] data);

    @Override
    public synchronized void subscribed(ChannelName channel, String runEpoch, long currentSeq) {
        // until the backlog is through, the cursor must stay where the client resumed from: a
        // connection lost half way resumes from there again
        ResumePoint from = resume.get(channel);
        seqs[channels.indexOf(channel)] = from == null ? currentSeq
                : from.fromEarliest() || !runEpoch.equals(from.epoch()) ? 0 : Math.min(from.lastSeen(), currentSeq);
        epoch = runEpoch;
        send("subscribed", ("{\"channel\":\"" + channel + "\",\"epoch\":\"" + runEpoch + "\",\"seq\":" + currentSeq + "}"));
    }

    @Override
    public synchronized void change(SequencedChange change) {
        int i = channels.indexOf(change.channel());
        seqs[i] = change.seq();
        if (send("change", change.json())) {
            stats.deliveries.increment();
        }
    }

    @Override
    public synchronized void unrecoverable(ChannelName channel, String runEpoch, long currentSeq, String reason) {
        seqs[channels.indexOf(channel)] = currentSeq;
        send("unrecoverable", ("{\"channel\":\"" + channel + "\",\"epoch\":\"" + runEpoch + "\",\"seq\":" + currentSeq
                + ",\"reason\":\"" + reason + "\"}"));
    }

    private boolean send(String event, String json) {
        return send(event, json.getBytes(StandardCharsets.UTF_8));
    }

    private boolean send(String event, byte[] data) {
        if (closing) {
            return false;
        }
        String id = EventCursor.format(epoch, seqs);
        int size = frameSize(event, id, data);
        if (!budget.tryReserve(size)) {
            disconnect(DisconnectReason.SLOW_CONSUMER);
            return false;
        }
        if (!total.tryReserve(size)) {
            budget.release(size);
            disconnect(DisconnectReason.OVERLOADED);
            return false;
        }
        outbox.write(socket, frame(event, id, data), f -> {
            budget.release(size);
            total.release(size);
        });
        return true;
    }

    /** Sends a final {@code disconnect} event with the reason (outside the budget) and closes. */
    synchronized void disconnect(DisconnectReason reason) {
        if (closing || !socket.isActive()) {
            return;
        }
        closing = true;
        stats.disconnected(reason.wire());
        byte[] data = ("{\"reason\":\"" + reason.wire() + "\"}").getBytes(StandardCharsets.UTF_8);
        outbox.write(socket, frame("disconnect", EventCursor.format(epoch, seqs), data), ChannelFutureListener.CLOSE);
        // a client that reads nothing never takes the goodbye: close regardless
        socket.eventLoop().schedule(() -> socket.close(), GOODBYE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Bytes waiting for this connection's socket. */
    long pendingBytes() {
        return budget.pendingBytes();
    }
}
