package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.channel.HistoryLimits;
import dev.tideline.fanout.channel.NamespaceTopics;
import dev.tideline.fanout.delivery.ByteBudget;
import dev.tideline.fanout.stats.GatewayStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An event stream's batch is one HTTP chunk (RFC 9112 7.1): the size line the connection writes into
 * its own array must be the size in hex, whatever its number of digits, exactly as
 * {@code Integer.toHexString} spells it, and a shorter line after a longer one must leave no digit behind.
 */
class SseChunkTest {
    private final EmbeddedChannel socket = new EmbeddedChannel();
    private final SseConnection connection;

    SseChunkTest() {
        socket.pipeline().addLast(HttpGateway.HTTP_CODEC, new HttpServerCodec());
        ChannelHub hub = new ChannelHub(new HistoryLimits(10, 60_000, 1 << 20, 1 << 24), 100, 60_000, new ConsumerProgress(),
                new NamespaceTopics(), System::currentTimeMillis);
        connection = new SseConnection(socket, hub, new GatewayStats(), new ByteBudget(1 << 20), new ByteBudget(1 << 24),
                List.of(new ChannelName("shop", "orders", "acme")), 1, new LoopOutbox.Registry(0));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 9, 10, 15, 16, 17, 255, 256, 4095, 4096, 65_535, 65_536, 1 << 20})
    void theChunkSizeLineIsTheSizeInHexAfterALongerOne(int size) {
        String longer = chunk((1 << 20) + 1);
        assertThat(longer).startsWith("100001\r\n");

        String chunk = chunk(size);

        String head = Integer.toHexString(size) + "\r\n";
        assertThat(chunk.substring(0, head.length())).isEqualTo(head);
        assertThat(chunk.length()).isEqualTo(head.length() + size + 2);
        assertThat(chunk.substring(head.length(), head.length() + size)).matches("x*");
        assertThat(chunk).endsWith("x\r\n");
    }

    private String chunk(int size) {
        FrameBuffer frames = new FrameBuffer();
        byte[] body = new byte[size];
        Arrays.fill(body, (byte) 'x');
        frames.bytes(body);
        ByteBuf b = connection.takeBatch(frames);
        try {
            return b.toString(StandardCharsets.US_ASCII);
        } finally {
            b.release();
        }
    }
}
