package dev.tideline.fanout.channel;

import java.nio.charset.StandardCharsets;

/**
 * One change as a channel numbered it. {@code json} is the whole message a client receives
 * ({@code {"channel","epoch","seq","ts","change"}}); it is rendered once and shared by every
 * subscriber.
 */
public record SequencedChange(ChannelName channel, long seq, long acceptedAtMillis, byte[] json) {

    /**
     * {@code ts} is the Kafka record's timestamp (the source sets the change's time), {@code at} when
     * the gateway published it: a client can tell pipeline lag from gateway lag.
     */
    static SequencedChange render(ChannelName channel, String epoch, long seq, long acceptedAtMillis,
                                  long kafkaTimestamp, long publishedAtMillis, String changeJson) {
        String text = "{\"channel\":\"" + channel + "\",\"epoch\":\"" + epoch + "\",\"seq\":" + seq
                + ",\"ts\":" + kafkaTimestamp + ",\"at\":" + publishedAtMillis + ",\"change\":" + changeJson + "}";
        return new SequencedChange(channel, seq, acceptedAtMillis, text.getBytes(StandardCharsets.UTF_8));
    }

    public int sizeBytes() {
        return json.length;
    }
}
