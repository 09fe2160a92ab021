package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.channel.HistoryLimits;
import dev.tideline.fanout.channel.NamespaceTopics;
import dev.tideline.fanout.channel.StartPoint;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * What a connection writes: the frames waiting at a flush go out as one buffer (one HTTP chunk on an
 * event stream, consecutive WebSocket frames on a WebSocket), each with its own event id, and their
 * budget bytes come back once written; the batching window holds them until it ends.
 */
class ConnectionBatchingTest {
    private static final TopicPartition P0 = new TopicPartition("tl.shop.orders", 0);
    private static final ChannelName ORDERS = new ChannelName("shop", "orders", "acme");
    private final ConsumerProgress progress = new ConsumerProgress();
    private final ByteBudget budget = new ByteBudget(1 << 20);
    private final ByteBudget total = new ByteBudget(1 << 24);
    private final ChannelHub hub;
    private long next;

    ConnectionBatchingTest() {
        progress.assigned(Set.of(P0));
        progress.started(P0, 0);
        progress.markReady();
        hub = new ChannelHub(new HistoryLimits(10, 60_000, 1 << 20, 1 << 24), 100, 60_000, progress, new NamespaceTopics(),
                System::currentTimeMillis);
    }

    private void publish(int n) {
        for (int i = 0; i < n; i++) {
            long offset = next++;
            hub.publish(ORDERS, P0, offset, 7, "{\"op\":\"insert\",\"n\":" + offset + "}");
            progress.advanced(P0, offset + 1);
        }
    }

    private static EmbeddedChannel sseSocket() {
        EmbeddedChannel socket = new EmbeddedChannel();
        socket.pipeline().addLast(HttpGateway.HTTP_CODEC, new HttpServerCodec());
        return socket;
    }

    private static List<String> written(EmbeddedChannel socket) {
        List<String> out = new ArrayList<>();
        for (Object m; (m = socket.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) m;
            out.add(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return out;
    }

    @Test
    void theEventsWaitingAtAFlushGoOutAsOneChunkEachWithItsOwnId() throws Exception {
        EmbeddedChannel socket = sseSocket();
        SseConnection c = new SseConnection(socket, hub, new GatewayStats(), budget, total, List.of(ORDERS), 1, new LoopOutbox.Registry(0));
        hub.subscribe(c, ORDERS, StartPoint.LIVE);
        socket.runPendingTasks();
        assertThat(written(socket)).singleElement().satisfies(chunk -> assertThat(chunk)
                .contains("event: subscribed\n").contains("event: live\n"));

        publish(3);
        assertThat(budget.pendingBytes()).as("reserved while waiting").isPositive();
        socket.runPendingTasks();
        List<String> chunks = written(socket);

        assertThat(chunks).as("three events, one write").hasSize(1);
        String chunk = chunks.get(0);
        int lineEnd = chunk.indexOf("\r\n");
        String body = chunk.substring(lineEnd + 2, chunk.length() - 2);
        assertThat(Integer.parseInt(chunk.substring(0, lineEnd), 16)).as("the chunk size line").isEqualTo(body.length());
        assertThat(chunk).endsWith("\r\n");
        // "at" is when the gateway rendered the change
        assertThat(body.replaceAll("\"at\":\\d+", "\"at\":AT")).isEqualTo(frame(1, 0) + frame(2, 1) + frame(3, 2));
        assertThat(budget.pendingBytes()).as("given back once written").isZero();
        assertThat(total.pendingBytes()).isZero();
    }

    private static String frame(long positionAfter, long offset) {
        return "id: 1|1|shop.orders.acme=tl.shop.orders@" + positionAfter + "\nevent: change\ndata: {\"channel\":\"shop.orders.acme\","
                + "\"topic\":\"tl.shop.orders\",\"partition\":0,\"offset\":" + offset + ",\"ts\":7,\"at\":"
                + "AT,\"change\":{\"op\":\"insert\",\"n\":" + offset + "}}\n\n";
    }

    @Test
    void theBatchingWindowHoldsTheEventsUntilItEnds() throws Exception {
        EmbeddedChannel socket = sseSocket();
        SseConnection c = new SseConnection(socket, hub, new GatewayStats(), budget, total, List.of(ORDERS), 1, new LoopOutbox.Registry(50));
        hub.subscribe(c, ORDERS, StartPoint.LIVE);
        publish(2);
        socket.runPendingTasks();
        assertThat(written(socket)).as("within the window").isEmpty();

        socket.advanceTimeBy(50, TimeUnit.MILLISECONDS);
        socket.runScheduledPendingTasks();
        List<String> chunks = written(socket);

        assertThat(chunks).hasSize(1);
        assertThat(chunks.get(0)).contains("event: subscribed\n").contains("event: live\n").contains("\"offset\":0,").contains("\"offset\":1,");
    }

    @Test
    void webSocketFramesOfAFlushAreWrittenTogetherAndDecodeOneEventEach() throws Exception {
        EmbeddedChannel socket = new EmbeddedChannel();
        WebSocketConnection c = new WebSocketConnection(socket, hub, new GatewayStats(), budget, total, List.of(ORDERS), 1,
                new LoopOutbox.Registry(0));
        hub.subscribe(c, ORDERS, StartPoint.LIVE);
        publish(2);
        socket.runPendingTasks();
        ByteBuf batch = socket.readOutbound();
        assertThat((Object) socket.readOutbound()).as("one write").isNull();

        // what a browser reads: unmasked frames from the server (RFC 6455 5.1)
        EmbeddedChannel client = new EmbeddedChannel(new WebSocket13FrameDecoder(false, false, 65_536));
        client.writeInbound(batch);
        List<String> events = new ArrayList<>();
        for (TextWebSocketFrame f; (f = client.readInbound()) != null; ) {
            events.add(f.text());
            f.release();
        }

        assertThat(events).hasSize(4);
        assertThat(events.get(0)).startsWith("{\"event\":\"subscribed\",\"id\":\"1|1|shop.orders.acme=tl.shop.orders@0\",\"data\":");
        assertThat(events.get(2)).startsWith("{\"event\":\"change\",\"id\":\"1|1|shop.orders.acme=tl.shop.orders@1\",\"data\":{")
                .contains("\"offset\":0,").endsWith("}}}");
        assertThat(events.get(3)).contains("tl.shop.orders@2\"").contains("\"offset\":1,");
        assertThat(budget.pendingBytes()).isZero();
    }
}
