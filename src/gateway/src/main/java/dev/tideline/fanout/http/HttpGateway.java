package dev.tideline.fanout.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.auth.TokenKeys;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.quota.TenantQuotas;
import dev.tideline.fanout.delivery.ByteBudget;
import dev.tideline.fanout.resume.CatchUpExecutor;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.concurrent.TimeUnit;

/** The non-blocking HTTP server (Netty): a few event-loop threads serve every connection. */
public final class HttpGateway implements AutoCloseable {
    /** A request line may carry a resume cursor (up to 8 KB, percent-encoded). */
    private static final int MAX_REQUEST_LINE = 32 * 1024;
    private static final int MAX_HEADERS = 16 * 1024;
    private static final int MAX_BODY = 16 * 1024;
    /** the largest piece of a body the codec hands on at once */
    private static final int MAX_CHUNK = 8 * 1024;
    /** connections the kernel queues before the server accepts them: thousands of clients reconnect at once */
    private static final int ACCEPT_BACKLOG = 4096;
    /** The HTTP codec's name in the pipeline: an event stream writes its chunks from there, past the encoder. */
    static final String HTTP_CODEC = "http";

    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
    private volatile Channel server;

    /** How connections are admitted: caps and the request read time-out. */
    public record Admission(ConnectionLimiter limiter, long requestTimeoutMillis) {
    }

    /**
     * The queue bounds: {@code perConnection} bytes waiting for one socket, {@code total} for all of
     * them together (the gateway's memory); {@code flushWindowMillis}: how long a connection's first
     * waiting frame waits for others before they are written together (0: no wait).
     */
    public record Budgets(long perConnection, long total, long flushWindowMillis) {
        public Budgets(long perConnection, long total) {
            this(perConnection, total, 0);
        }
    }

    /**
     * Which browser pages may subscribe: {@code allowed} besides the gateway's {@code own} origins
     * (empty: {@code http://<bind address>:<bound port>}).
     */
    public record Origins(List<String> allowed, List<String> own) {
    }

    /**
     * What /health says: {@code healthy} gives its status code, {@code json} its body, with internals
     * (lag, the last error's text) only for an operator.
     */
    public record Health(BooleanSupplier healthy, Function<Boolean, String> json) {
    }

    /** Everything a subscription needs besides the network settings. */
    public record Services(ChannelHub hub, TokenKeys keys, TenantQuotas quotas, GatewayStats stats, CatchUpExecutor catchUp,
                           Supplier<String> statsJson, Health health) {
    }

    /** Binds and serves until {@link #close()}. */
    public HttpGateway(String bindAddress, int port, int sendBufferBytes, Admission admission, Budgets budgets, int maxChannels,
                       Origins origins, Services services) throws InterruptedException {
        List<String> own = origins.own();
        OriginPolicy originPolicy = new OriginPolicy(origins.allowed(),
                own.isEmpty() ? () -> List.of("http://" + bindAddress + ":" + boundPort()) : () -> own);
        RequestHandler.Shared shared = new RequestHandler.Shared(services.hub(), services.keys(), services.quotas(), services.stats(), budgets,
                new ByteBudget(budgets.total()), maxChannels, originPolicy, services.catchUp(),
                new LoopOutbox.Registry(budgets.flushWindowMillis()), services.statsJson(), services.health());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, ACCEPT_BACKLOG)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // Heap buffers, unpooled: what waits for a slow socket stays on the heap, bounded by the
                // queue budgets, instead of pinning pooled direct-memory chunks (a few laggards among
                // thousands of connections pinned them all and starved the server of direct memory)
                .childOption(ChannelOption.ALLOCATOR, new UnpooledByteBufAllocator(false))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("gate", new ConnectionGate(admission.limiter(), shared.stats()))
                                .addLast(RequestTimeout.NAME, new RequestTimeout(admission.requestTimeoutMillis(), shared.stats()))
                                .addLast(HTTP_CODEC, new HttpServerCodec(MAX_REQUEST_LINE, MAX_HEADERS, MAX_CHUNK))
                                .addLast("aggregate", new HttpObjectAggregator(MAX_BODY))
                                .addLast("route", new RequestHandler(shared))
                                .addLast("errors", new ErrorCloser());
                    }
                });
        if (sendBufferBytes > 0) {
            b.childOption(ChannelOption.SO_SNDBUF, sendBufferBytes);
        }
        try {
            ChannelFuture bound = b.bind(bindAddress, port);
            server = bound.channel();
            bound.sync();
        } catch (RuntimeException | InterruptedException e) {
            close0();
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The port once bound, else -1 (then no origin is the gateway's own). */
    private int boundPort() {
        Channel s = server;
        return s != null && s.localAddress() instanceof InetSocketAddress a ? a.getPort() : -1;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        close0();
    }

    private void close0() {
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** A connection that fails (reset by the peer, mostly) is closed; its subscriber goes with it. */
    private static final class ErrorCloser extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            // bytes a subscriber sends after its request (SSE) carry nothing we read
            io.netty.util.ReferenceCountUtil.release(msg);
        }
    }
}
