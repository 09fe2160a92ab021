package dev.tideline.fanout.http;

import dev.tideline.fanout.GatewayStats;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
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
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The non-blocking HTTP server (Netty): a few event-loop threads serve every connection. */
public final class HttpGateway implements AutoCloseable {
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
    private final Channel server;

    public HttpGateway(String bindAddress, int port, int sendBufferBytes, ChannelHub hub, JwtVerifier verifier,
                       GatewayStats stats, Budgets budgets, int maxChannels, Supplier<String> statsJson)
            throws InterruptedException {
        LoopOutbox.Registry outboxes = new LoopOutbox.Registry();
        ByteBudget total = new ByteBudget(budgets.total());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // Heap buffers, unpooled: what waits for a slow socket stays on the heap, bounded by the
                // queue budgets, instead of pinning pooled direct-memory chunks (a few laggards among
                // thousands of connections pinned them all and starved the server of direct memory)
                .childOption(ChannelOption.ALLOCATOR, new UnpooledByteBufAllocator(false))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast("http", new HttpServerCodec())
                                .addLast("aggregate", new HttpObjectAggregator(16 * 1024))
                                .addLast("route", new RequestHandler(hub, verifier, stats, budgets, maxChannels, statsJson, outboxes, total))
                                .addLast("errors", new ErrorCloser());
                    }
                });
        if (sendBufferBytes > 0) {
            b.childOption(ChannelOption.SO_SNDBUF, sendBufferBytes);
        }
        try {
            server = b.bind(bindAddress, port).sync().channel();
        } catch (RuntimeException | InterruptedException e) {
            close();
            throw e;
        }
    }

    /**
     * The queue bounds: {@code perConnection} bytes waiting for one socket, {@code total} for all of
     * them together (the gateway's memory).
     */
    public record Budgets(long perConnection, long total) {
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
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
