package dev.tideline.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * How many records a topic holds: the sum of its partitions' end offsets. Reading offsets costs the
 * broker next to nothing, unlike consuming 50,000 records while they are being measured.
 */
final class TopicCounter implements AutoCloseable {
    private final Admin admin;

    TopicCounter(String bootstrap) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** Records written to {@code topic} so far; 0 while it does not exist. */
    long count(String topic) {
        try {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic);
            Map<TopicPartition, OffsetSpec> latest = description.partitions().stream()
                    .collect(Collectors.toMap(p -> new TopicPartition(topic, p.partition()), p -> OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
            return ends.values().stream().mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return 0;
            }
            throw new IllegalStateException("cannot read the end offsets of " + topic, e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("reading the end offsets of " + topic + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        admin.close();
    }
}
