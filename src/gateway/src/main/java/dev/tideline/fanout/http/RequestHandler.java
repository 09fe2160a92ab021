package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.auth.TokenKeys;
import dev.tideline.fanout.auth.TokenRejectedException;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.delivery.ByteBudget;
import dev.tideline.fanout.quota.TenantQuotas;
import dev.tideline.fanout.resume.CatchUpExecutor;
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
 * {@code /demo.html} are the served client, {@code /health} (open, for load balancers) and
 * {@code /stats} (operator token) are for operators.
 */
final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    /** WebSocket frames a subscriber may send: pings and closes only need 125 bytes (RFC 6455 5.5). */
    private static final int MAX_INBOUND_FRAME = 1024;

    /** What every request handler of one server shares. */
    record Shared(ChannelHub hub, TokenKeys keys, TenantQuotas quotas, GatewayStats stats, HttpGateway.Budgets budgets, ByteBudget total,
                  int maxChannels, OriginPolicy origins, CatchUpExecutor catchUp, LoopOutbox.Registry outboxes,
                  Supplier<String> statsJson, HttpGateway.Health health) {
    }

    private final Shared s;

    RequestHandler(Shared shared) {
        this.s = shared;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        RequestTimeout.requestArrived(ctx);
        if (!req.decoderResult().isSuccess()) {
            s.stats().refused("400:bad-request");
            respond(ctx, HttpResponseStatus.BAD_REQUEST, error("bad-request", "not a valid HTTP request (or a line or header too long)"));
            return;
        }
        if (!HttpMethod.GET.equals(req.method())) {
            respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, error("method", "only GET is served"));
            return;
        }
        QueryStringDecoder query = new QueryStringDecoder(req.uri());
        switch (query.path()) {
            case "/sse" -> subscribe(ctx, req, query, false);
            case "/ws" -> subscribe(ctx, req, query, true);
            case "/health" -> health(ctx, req, query);
            case "/stats" -> stats(ctx, req, query);
            case "/", "/demo.html" -> resource(ctx, "demo.html", "text/html; charset=utf-8");
            case "/fanout-client.js" -> resource(ctx, "fanout-client.js", "text/javascript; charset=utf-8");
            default -> respond(ctx, HttpResponseStatus.NOT_FOUND, error("not-found", query.path()));
        }
    }

    /** Open (load balancers): the status alone; its internals only with an operator token. */
    private void health(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder query) {
        boolean operator;
        try {
            s.keys().verifyOperator(SubscriptionRequest.token(query.parameters(), req.headers().get(HttpHeaderNames.AUTHORIZATION)),
                    System.currentTimeMillis());
            operator = true;
        } catch (TokenRejectedException notAnOperator) {
            operator = false; // answered all the same, without internals
        }
        respond(ctx, s.health().healthy().getAsBoolean() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                s.health().json().apply(operator));
    }

    private void stats(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder query) {
        try {
            s.keys().verifyOperator(SubscriptionRequest.token(query.parameters(), req.headers().get(HttpHeaderNames.AUTHORIZATION)),
                    System.currentTimeMillis());
        } catch (TokenRejectedException e) {
            s.stats().refused("401:stats-" + e.reason());
            respond(ctx, HttpResponseStatus.UNAUTHORIZED, error(e.reason(), e.getMessage()));
            return;
        }
        respond(ctx, HttpResponseStatus.OK, s.statsJson().get());
    }

    private void subscribe(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder query, boolean webSocket) {
        String origin = req.headers().get(HttpHeaderNames.ORIGIN);
        String host = req.headers().get(HttpHeaderNames.HOST);
        if (!s.origins().allows(origin)) {
            refuse(ctx, 403, "origin-not-allowed", "pages of origin " + origin + " may not subscribe: add it to http.allowed.origins");
            return;
        }
        if (!s.hub().progress().ready()) {
            refuse(ctx, 503, "starting", "the gateway has not reached Kafka yet: retry shortly");
            return;
        }
        SubscriptionRequest.Decision decision = SubscriptionRequest.decide(query.parameters(),
                req.headers().get(HttpHeaderNames.AUTHORIZATION), req.headers().get("Last-Event-ID"),
                s.keys().subscribers(), s.maxChannels(), System.currentTimeMillis());
        if (decision instanceof SubscriptionRequest.Refused refused) {
            refuse(ctx, refused.status(), refused.reason(), refused.message());
            return;
        }
        SubscriptionRequest.Accepted accepted = (SubscriptionRequest.Accepted) decision;
        TenantQuotas.Lease lease;
        try {
            lease = s.quotas().admit(accepted.claims().tenant(), accepted.channels(), accepted.catchUps());
        } catch (TenantQuotas.QuotaExceededException e) {
            refuse(ctx, 429, e.reason(), e.getMessage());
            return;
        }
        // every way out closes the socket: the subscription's share goes back then, whatever happened before
        ctx.channel().closeFuture().addListener(f -> lease.close());
        try {
            s.hub().ensureChannels(accepted.channels());
        } catch (ChannelHub.ChannelsFullException e) {
            refuse(ctx, 503, "channels-full", e.getMessage() + ": retry later");
            return;
        }
        Connection connection;
        ByteBudget budget = new ByteBudget(s.budgets().perConnection());
        if (webSocket) {
            WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(
                    "ws://" + host + "/ws", null, false, MAX_INBOUND_FRAME).newHandshaker(req);
            if (handshaker == null) {
                WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
                return;
            }
            handshaker.handshake(ctx.channel(), req);
            WebSocketFrameHandler frames = new WebSocketFrameHandler(handshaker);
            ctx.pipeline().replace(this, "ws-frames", frames);
            WebSocketConnection ws = new WebSocketConnection(ctx.channel(), s.hub(), s.stats(), budget, s.total(), accepted.channels(),
                    accepted.subscribedAtMillis(), s.outboxes());
            frames.attach(ws);
            connection = ws;
        } else {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
            head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            head.headers().set("X-Accel-Buffering", "no");
            if (s.origins().isCrossOrigin(origin)) {
                head.headers().set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
                head.headers().set(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN);
            }
            HttpUtil.setTransferEncodingChunked(head, true);
            ctx.write(head);
            ctx.writeAndFlush(new io.netty.handler.codec.http.DefaultHttpContent(
                    Unpooled.copiedBuffer("retry: 2000\n\n", StandardCharsets.US_ASCII)));
            connection = new SseConnection(ctx.channel(), s.hub(), s.stats(), budget, s.total(), accepted.channels(),
                    accepted.subscribedAtMillis(), s.outboxes());
            // nothing more is read from an event stream; a client's bytes now are not a request
            ctx.pipeline().remove(this);
        }
        connection.start(accepted.starts(), accepted.claims().expiresAtMillis(), s.catchUp(), lease);
    }

    private void refuse(ChannelHandlerContext ctx, int status, String reason, String message) {
        s.stats().refused(status + ":" + reason);
        respond(ctx, HttpResponseStatus.valueOf(status), error(reason, message));
    }

    private void resource(ChannelHandlerContext ctx, String name, String type) {
        try (var in = RequestHandler.class.getResourceAsStream("/dev/tideline/fanout/web/" + name)) {
            if (in == null) {
                respond(ctx, HttpResponseStatus.NOT_FOUND, error("not-found", name));
                return;
            }
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(in.readAllBytes()));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            send(ctx, res);
        } catch (java.io.IOException e) {
            respond(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, error("io", e.getMessage()));
        }
    }

    private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String body) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
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
