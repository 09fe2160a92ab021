package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connection must deliver its whole request within {@code http.request.timeout.ms} of opening;
 * one that trickles it (or sends nothing) gets 408 and is closed. Removed from the pipeline once a
 * request has arrived ({@link #requestArrived}).
 */
final class RequestTimeout extends ChannelInboundHandlerAdapter {
    static final String NAME = "request-timeout";
    private final long timeoutMillis;
    private final GatewayStats stats;
    private ScheduledFuture<?> timer;

    RequestTimeout(long timeoutMillis, GatewayStats stats) {
        this.timeoutMillis = timeoutMillis;
        this.stats = stats;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        timer = ctx.executor().schedule(() -> expire(ctx), timeoutMillis, TimeUnit.MILLISECONDS);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private void expire(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        stats.refused("408:request-timeout");
        byte[] body = RequestHandler.error("request-timeout", "the request did not arrive within " + timeoutMillis + " ms")
                .getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
                + body.length + "\r\n\r\n";
        // straight to the socket: the HTTP codec after this handler may hold half a request
        ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body)).addListener(ChannelFutureListener.CLOSE);
    }

    /** The request is complete: the time-out no longer applies to this connection. */
    static void requestArrived(ChannelHandlerContext ctx) {
        if (ctx.pipeline().get(NAME) != null) {
            ctx.pipeline().remove(NAME);
        }
    }
}
