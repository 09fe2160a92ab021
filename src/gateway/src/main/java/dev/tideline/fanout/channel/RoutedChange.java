package dev.tideline.fanout.channel;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.TopicPartition;

/**
 * One change as a channel delivers it, with the Kafka position it was read at. {@code json} is the
 * whole message a client receives ({@code {"channel","topic","partition","offset","ts","at","change"}});
 * it is rendered once and shared by every subscriber.
 *
 * @param acceptedAtMillis when the change entered the pipeline (the Kafka timestamp, capped at now): history ages by it
 */
public record RoutedChange(ChannelName channel, TopicPartition source, long offset, long acceptedAtMillis, byte[] json) {

    /**
     * {@code ts} is the Kafka record's timestamp (the source sets the change's time), {@code at} when
     * the gateway rendered it: a client can tell pipeline lag from gateway lag.
     */
    public static RoutedChange render(ChannelName channel, TopicPartition source, long offset, long kafkaTimestamp,
                                      long nowMillis, String changeJson) {
        long acceptedAt = kafkaTimestamp > 0 ? Math.min(kafkaTimestamp, nowMillis) : nowMillis;
        String text = "{\"channel\":\"" + channel + "\",\"topic\":\"" + source.topic() + "\",\"partition\":" + source.partition()
                + ",\"offset\":" + offset + ",\"ts\":" + kafkaTimestamp + ",\"at\":" + nowMillis + ",\"change\":" + changeJson + "}";
        return new RoutedChange(channel, source, offset, acceptedAt, text.getBytes(StandardCharsets.UTF_8));
    }

    public int sizeBytes() {
        return json.length;
    }
}
