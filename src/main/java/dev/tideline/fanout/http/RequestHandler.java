package dev.tideline.fanout.http;

import dev.tideline.fanout.GatewayStats;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * Routes one HTTP request: {@code /sse} and {@code /ws} subscribe, {@code /fanout-client.js} and
 * {@code /demo.html} are the served client, {@code /health} and {@code /stats} are for operators.
 */
final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final ChannelHub hub;
    private final JwtVerifier verifier;
    private final GatewayStats stats;
    private final HttpGateway.Budgets budgets;
    private final ByteBudget total;
    private final int maxChannels;
    private final Supplier<String> statsJson;
    private final LoopOutbox.Registry outboxes;

    RequestHandler(ChannelHub hub, JwtVerifier verifier, GatewayStats stats, HttpGateway.Budgets budgets, int maxChannels,
                   Supplier<String> statsJson, LoopOutbox.Registry outboxes, ByteBudget total) {
        this.budgets = budgets;
        this.total = total;
        this.outboxes = outboxes;
        this.hub = hub;
        this.verifier = verifier;
        this.stats = stats;
        this.maxChannels = maxChannels;
        this.statsJson = statsJson;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isSuccess()) {
            respond(ctx, HttpResponseStatus.BAD_REQUEST, "application/json", error("bad-request", "not a valid HTTP request"));
            return;
        }
        if (!HttpMethod.GET.equals(req.method())) {
            respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "application/json", error("method", "only GET is served"));
            return;
        }
        QueryStringDecoder query = new QueryStringDecoder(req.uri());
        switch (query.path()) {
            case "/sse" -> subscribe(ctx, req, query, false);
            case "/ws" -> subscribe(ctx, req, query, true);
            case "/health" -> respond(ctx, HttpResponseStatus.OK, "application/json", "{\"status\":\"ok\"}");
            case "/stats" -> respond(ctx, HttpResponseStatus.OK, "application/json", statsJson.get());
            case "/", "/demo.html" -> resource(ctx, "demo.html", "text/html; charset=utf-8");
            case "/fanout-client.js" -> resource(ctx, "fanout-client.js", "text/javascript; charset=utf-8");
            default -> respond(ctx, HttpResponseStatus.NOT_FOUND, "application/json", error("not-found", query.path()));
        }
    }

    private void subscribe(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder query, boolean webSocket) {
        SubscriptionRequest.Decision decision = SubscriptionRequest.decide(query.parameters(),
                req.headers().get(HttpHeaderNames.AUTHORIZATION), req.headers().get("Last-Event-ID"),
                verifier, maxChannels, System.currentTimeMillis());
        if (decision instanceof SubscriptionRequest.Refused refused) {
            stats.refused(refused.status() + ":" + refused.reason());
            respond(ctx, HttpResponseStatus.valueOf(refused.status()), "application/json", error(refused.reason(), refused.message()));
            return;
        }
        SubscriptionRequest.Accepted accepted = (SubscriptionRequest.Accepted) decision;
        Connection connection;
        if (webSocket) {
            WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(
                    "ws://" + req.headers().get(HttpHeaderNames.HOST) + "/ws", null, false).newHandshaker(req);
            if (handshaker == null) {
                WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
                return;
            }
            handshaker.handshake(ctx.channel(), req);
            ctx.pipeline().replace(this, "ws-frames", new WebSocketFrameHandler(handshaker));
            connection = new WebSocketConnection(ctx.channel(), hub, stats, new ByteBudget(budgets.perConnection()), total, accepted.channels(), outboxes);
        } else {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
            head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            head.headers().set("X-Accel-Buffering", "no");
            HttpUtil.setTransferEncodingChunked(head, true);
            ctx.write(head);
            ctx.writeAndFlush(new io.netty.handler.codec.http.DefaultHttpContent(
                    Unpooled.copiedBuffer("retry: 2000\n\n", StandardCharsets.US_ASCII)));
            connection = new SseConnection(ctx.channel(), hub, stats, new ByteBudget(budgets.perConnection()), total, accepted.channels(), outboxes);
            // nothing more is read from an event stream; a client's bytes now are not a request
            ctx.pipeline().remove(this);
        }
        connection.start(accepted.resume(), accepted.claims().expiresAtMillis());
    }

    private void resource(ChannelHandlerContext ctx, String name, String type) {
        try (var in = RequestHandler.class.getResourceAsStream("/dev/tideline/fanout/web/" + name)) {
            if (in == null) {
                respond(ctx, HttpResponseStatus.NOT_FOUND, "application/json", error("not-found", name));
                return;
            }
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(in.readAllBytes()));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            send(ctx, res);
        } catch (java.io.IOException e) {
            respond(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "application/json", error("io", e.getMessage()));
        }
    }

    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String type, String body) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        send(ctx, res);
    }

    private static void send(ChannelHandlerContext ctx, FullHttpResponse res) {
        res.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        HttpUtil.setContentLength(res, res.content().readableBytes());
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }

    static String error(String reason, String message) {
        return "{\"error\":\"" + jsonEscape(reason) + "\",\"message\":\"" + jsonEscape(message) + "\"}";
    }

    static String jsonEscape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
