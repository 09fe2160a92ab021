package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ChannelHubTest {
    private static final String T = "tl.shop.orders";
    private static final TopicPartition P0 = new TopicPartition(T, 0);
    private static final ChannelName ORDERS = new ChannelName("shop", "orders", "acme");
    private static final ChannelName OTHER = new ChannelName("shop", "orders", "globex");
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ConsumerProgress progress = new ConsumerProgress();
    private long next;

    private ChannelHub hub(int historySize, int maxChannels) {
        progress.assigned(Set.of(P0));
        progress.started(P0, 0);
        progress.markReady();
        return new ChannelHub(new HistoryLimits(historySize, 60_000, 1 << 20, 1 << 24), maxChannels, 60_000, progress,
                new NamespaceTopics(), clock::get);
    }

    /** Publishes n changes of a channel as the consumer does: routed, then progress advanced. */
    private void publish(ChannelHub hub, ChannelName c, int n) {
        for (int i = 0; i < n; i++) {
            long offset = next++;
            hub.publish(c, P0, offset, clock.get(), "{}");
            progress.advanced(P0, offset + 1);
        }
    }

    private static StartPoint after(long offset) {
        return new StartPoint.After(new Positions(Map.of(P0, offset)), 1);
    }

    @Test
    void rendersTheMessageWithItsKafkaPosition() {
        ChannelHub hub = hub(10, 100);
        RoutedChange c = hub.publish(ORDERS, P0, 42, 7, "{\"op\":\"insert\"}");

        assertThat(new String(c.json())).isEqualTo("{\"channel\":\"shop.orders.acme\",\"topic\":\"tl.shop.orders\",\"partition\":0,"
                + "\"offset\":42,\"ts\":7,\"at\":1000000,\"change\":{\"op\":\"insert\"}}");
    }

    @Test
    void aLiveSubscriberGetsOnlyLaterChangesOfItsChannelAndStartsAtTheConsumersPosition() throws Exception {
        ChannelHub hub = hub(10, 100);
        publish(hub, ORDERS, 2);
        publish(hub, OTHER, 3); // the consumer is at 5 now
        RecordingListener l = new RecordingListener();
        ResumePlan plan = hub.subscribe(l, ORDERS, StartPoint.LIVE);
        publish(hub, OTHER, 1);
        publish(hub, ORDERS, 1);

        assertThat(plan.kind()).isEqualTo(ResumePlan.Kind.LIVE);
        assertThat(plan.positions().get(P0)).isEqualTo(5);
        assertThat(l.offsets).containsExactly(6L);
    }

    @Test
    void aResumeWithinTheHistoryGetsExactlyTheChangesAtOrAfterItsPosition() throws Exception {
        ChannelHub hub = hub(10, 100);
        publish(hub, ORDERS, 2);
        publish(hub, OTHER, 1);
        publish(hub, ORDERS, 2); // orders at 0,1,3,4
        RecordingListener l = new RecordingListener();
        ResumePlan plan = hub.subscribe(l, ORDERS, after(1));

        assertThat(plan.kind()).isEqualTo(ResumePlan.Kind.CACHE);
        assertThat(plan.cached()).extracting(RoutedChange::offset).containsExactly(1L, 3L, 4L);
        assertThat(plan.boundary()).containsEntry(P0, 5L);
    }

    @Test
    void aResumeOlderThanTheHistoryGoesToKafka() throws Exception {
        ChannelHub hub = hub(3, 100);
        publish(hub, ORDERS, 6); // history keeps 3,4,5
        RecordingListener l = new RecordingListener();

        assertThat(hub.subscribe(l, ORDERS, after(2)).kind()).isEqualTo(ResumePlan.Kind.KAFKA);
        assertThat(hub.subscribe(new RecordingListener(), ORDERS, after(3)).kind()).isEqualTo(ResumePlan.Kind.CACHE);
    }

    @Test
    void aChannelCreatedLaterKnowsItsHistoryBeganWhereTheConsumerStarted() throws Exception {
        ChannelHub hub = hub(10, 100);
        publish(hub, OTHER, 5);
        publish(hub, ORDERS, 1); // the first change of orders ever, at 5

        // nothing of orders existed before 5 since the consumer started at 0: served from memory
        ResumePlan plan = hub.subscribe(new RecordingListener(), ORDERS, after(2));
        assertThat(plan.kind()).isEqualTo(ResumePlan.Kind.CACHE);
        assertThat(plan.cached()).extracting(RoutedChange::offset).containsExactly(5L);
    }

    @Test
    void unusedChannelsAreSweptAndTheCapIsKept() throws Exception {
        ChannelHub hub = hub(10, 2);
        publish(hub, ORDERS, 1);
        clock.addAndGet(61_000); // its history ages out
        assertThat(hub.sweep()).isEqualTo(1);
        assertThat(hub.channelCount()).isZero();

        RecordingListener a = new RecordingListener();
        RecordingListener b = new RecordingListener();
        hub.subscribe(a, ORDERS, StartPoint.LIVE);
        hub.subscribe(b, OTHER, StartPoint.LIVE);
        ChannelName third = new ChannelName("shop", "orders", "initech");
        assertThatThrownBy(() -> hub.subscribe(new RecordingListener(), third, StartPoint.LIVE))
                .isInstanceOf(ChannelHub.ChannelsFullException.class);
        assertThatThrownBy(() -> hub.ensureChannels(List.of(third))).isInstanceOf(ChannelHub.ChannelsFullException.class);
        // a change for a channel that cannot be made is dropped (counted) and the history says it is incomplete
        assertThat(hub.publish(third, P0, next++, 0, "{}")).isNull();
        assertThat(hub.droppedForCap()).isEqualTo(1);

        hub.unsubscribe(b, List.of(OTHER));
        publish(hub, third, 1); // makes room: OTHER has nobody listening
        assertThat(hub.channelCount()).isEqualTo(2);
        assertThat(hub.evictedChannels()).isEqualTo(2);
        // a resume of the re-created OTHER from before its eviction cannot come from memory
        assertThat(hub.subscribe(new RecordingListener(), OTHER, after(0)).kind()).isEqualTo(ResumePlan.Kind.KAFKA);
    }

    @Test
    void atTheCapTheLeastRecentlyUsedIdleChannelAloneMakesRoom() throws Exception {
        ChannelHub hub = hub(10, 5);
        List<ChannelName> idle = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            idle.add(new ChannelName("shop", "c" + i, "acme"));
            publish(hub, idle.get(i), 1); // created by changes, nobody listens
        }
        clock.addAndGet(120_000); // their histories have aged out: a sweep would remove all four
        publish(hub, idle.get(0), 1); // c0 used again: c1 is now the least recently used
        hub.subscribe(new RecordingListener(), ORDERS, StartPoint.LIVE); // the fifth channel, with a listener
        assertThat(hub.channelCount()).isEqualTo(5);

        hub.ensureChannels(List.of(OTHER));

        // one channel dropped, the least recently used without listeners; not every idle one swept on the way
        assertThat(hub.evictedChannels()).isEqualTo(1);
        assertThat(hub.channelCount()).isEqualTo(5);
        RecordingListener probe = new RecordingListener();
        // c0 kept its history (a re-created channel would send this resume to Kafka)
        assertThat(hub.subscribe(probe, idle.get(0), after(4)).cached()).extracting(RoutedChange::offset).containsExactly(4L);
        hub.unsubscribe(probe, List.of(idle.get(0)));
        // the next ones go in order of last use: c2, c3, OTHER, then c0 (its last listener left after); never ORDERS
        hub.ensureChannels(List.of(new ChannelName("shop", "n1", "acme")));
        hub.ensureChannels(List.of(new ChannelName("shop", "n2", "acme")));
        assertThat(hub.evictedChannels()).isEqualTo(3);
        hub.ensureChannels(List.of(new ChannelName("shop", "n3", "acme")));
        hub.ensureChannels(List.of(new ChannelName("shop", "n4", "acme")));
        assertThat(hub.evictedChannels()).isEqualTo(5);
        hub.subscribe(new RecordingListener(), new ChannelName("shop", "n1", "acme"), StartPoint.LIVE);
        hub.subscribe(new RecordingListener(), new ChannelName("shop", "n2", "acme"), StartPoint.LIVE);
        hub.subscribe(new RecordingListener(), new ChannelName("shop", "n3", "acme"), StartPoint.LIVE);
        hub.subscribe(new RecordingListener(), new ChannelName("shop", "n4", "acme"), StartPoint.LIVE);
        assertThatThrownBy(() -> hub.ensureChannels(List.of(new ChannelName("shop", "n5", "acme"))))
                .isInstanceOf(ChannelHub.ChannelsFullException.class);
    }

    @Test
    void theHistoryOfAllChannelsStaysWithinItsTotalBytes() {
        progress.assigned(Set.of(P0));
        progress.started(P0, 0);
        ChannelHub hub = new ChannelHub(new HistoryLimits(1000, 60_000, 1 << 20, 10_000), 100, 0, progress, new NamespaceTopics(), clock::get);
        String payload = "{\"x\":\"" + "y".repeat(400) + "\"}";
        for (int i = 0; i < 200; i++) {
            hub.publish(i % 2 == 0 ? ORDERS : OTHER, P0, i, 0, payload);
        }

        assertThat(hub.historyBytes()).isLessThanOrEqualTo(10_000).isGreaterThan(5_000);
    }

    @Test
    void subscribingWhilePublishingLosesAndDuplicatesNothing() throws Exception {
        ChannelHub hub = hub(100_000, 100);
        Thread publisher = new Thread(() -> publish(hub, ORDERS, 5_000));
        publisher.start();
        List<RecordingListener> listeners = new ArrayList<>();
        List<ResumePlan> plans = new ArrayList<>();
        while (publisher.isAlive() && listeners.size() < 20) {
            RecordingListener l = new RecordingListener();
            long from = Math.max(0, progress.next(P0) / 2); // resume from somewhere in the past
            plans.add(hub.subscribe(l, ORDERS, after(from)));
            listeners.add(l);
            Thread.onSpinWait();
        }
        publisher.join();
        assertThat(listeners).isNotEmpty();
        for (int k = 0; k < listeners.size(); k++) {
            ResumePlan p = plans.get(k);
            List<Long> got = new ArrayList<>();
            p.cached().forEach(c -> got.add(c.offset()));
            got.addAll(listeners.get(k).offsets);
            long first = p.positions().get(P0);
            assertThat(got).containsExactlyElementsOf(LongStream.range(first, 5_000).boxed().toList());
        }
    }
}
