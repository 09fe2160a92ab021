package dev.tideline.fanout.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;

/**
 * A subscriber's WebSocket after the handshake: answers pings (through the connection, within its
 * budget) and close; data frames carry nothing the gateway reads and are dropped.
 */
final class WebSocketFrameHandler extends SimpleChannelInboundHandler<WebSocketFrame> {
    private final WebSocketServerHandshaker handshaker;
    private WebSocketConnection connection;

    WebSocketFrameHandler(WebSocketServerHandshaker handshaker) {
        this.handshaker = handshaker;
    }

    void attach(WebSocketConnection c) {
        this.connection = c;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
        if (frame instanceof CloseWebSocketFrame close) {
            handshaker.close(ctx.channel(), close.retain());
        } else if (frame instanceof PingWebSocketFrame && connection != null) {
            connection.pong(frame.content().retain());
        }
    }
}
