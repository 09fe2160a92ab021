package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ChannelHubTest {
    private static final ChannelName ORDERS = new ChannelName("shop", "orders", "acme");
    private static final ChannelName USERS = new ChannelName("shop", "users", "acme");
    private final AtomicLong clock = new AtomicLong(1_000);
    private final ChannelHub hub = new ChannelHub("e1", 5, 60_000, clock::get);

    private void publish(ChannelName c, int n) {
        for (int i = 0; i < n; i++) {
            hub.publish(c, "{}", 0);
        }
    }

    @Test
    void numbersEachChannelFromOneAndRendersTheMessage() {
        SequencedChange first = hub.publish(ORDERS, "{\"op\":\"insert\"}", 42);
        hub.publish(USERS, "{}", 0);
        SequencedChange second = hub.publish(ORDERS, "{}", 0);

        assertThat(first.seq()).isEqualTo(1);
        assertThat(second.seq()).isEqualTo(2);
        assertThat(hub.currentSeq(USERS)).isEqualTo(1);
        assertThat(new String(first.json())).isEqualTo(
                "{\"channel\":\"shop.orders.acme\",\"epoch\":\"e1\",\"seq\":1,\"ts\":42,\"at\":1000,\"change\":{\"op\":\"insert\"}}");
    }

    @Test
    void aLiveSubscriberGetsOnlyLaterChangesOfItsChannels() {
        publish(ORDERS, 2);
        RecordingListener l = new RecordingListener();
        hub.subscribe(l, List.of(ORDERS), Map.of());
        publish(ORDERS, 1);
        publish(USERS, 1);

        assertThat(l.events).containsExactly("sub:orders@2", "orders#3");
    }

    @Test
    void aResumeGetsExactlyWhatWasMissedThenLiveChanges() {
        publish(ORDERS, 4);
        RecordingListener l = new RecordingListener();
        hub.subscribe(l, List.of(ORDERS, USERS), Map.of(ORDERS, ResumePoint.after("e1", 2), USERS, ResumePoint.after("e1", 0)));
        publish(ORDERS, 1);

        assertThat(l.events).containsExactly("sub:orders@4", "orders#3", "orders#4", "sub:users@0", "orders#5");
    }

    @Test
    void beyondTheHistoryOrFromAnotherRunIsUnrecoverable() {
        publish(ORDERS, 9); // history keeps 5..9
        RecordingListener beyond = new RecordingListener();
        RecordingListener otherRun = new RecordingListener();
        RecordingListener earliest = new RecordingListener();
        hub.subscribe(beyond, List.of(ORDERS), Map.of(ORDERS, ResumePoint.after("e1", 3)));
        hub.subscribe(otherRun, List.of(ORDERS), Map.of(ORDERS, ResumePoint.after("e0", 9)));
        hub.subscribe(earliest, List.of(ORDERS), Map.of(ORDERS, ResumePoint.earliest()));
        publish(ORDERS, 1);

        assertThat(beyond.events).containsExactly("sub:orders@9", "lost:orders@9:beyond-history", "orders#10");
        assertThat(otherRun.events).containsExactly("sub:orders@9", "lost:orders@9:epoch-changed", "orders#10");
        assertThat(earliest.events).containsExactly("sub:orders@9", "orders#5", "orders#6", "orders#7", "orders#8", "orders#9", "orders#10");
    }

    @Test
    void historyExpiresByAge() {
        publish(ORDERS, 2);
        clock.addAndGet(61_000);
        RecordingListener l = new RecordingListener();
        hub.subscribe(l, List.of(ORDERS), Map.of(ORDERS, ResumePoint.after("e1", 1)));

        assertThat(l.events).containsExactly("sub:orders@2", "lost:orders@2:beyond-history");
    }

    @Test
    void subscribingWhilePublishingLosesAndDuplicatesNothing() throws Exception {
        ChannelHub big = new ChannelHub("e1", 100_000, 600_000, clock::get);
        Thread publisher = new Thread(() -> {
            for (int i = 0; i < 5_000; i++) {
                big.publish(ORDERS, "{}", 0);
            }
        });
        publisher.start();
        List<RecordingListener> listeners = new ArrayList<>();
        while (publisher.isAlive() && listeners.size() < 20) {
            RecordingListener l = new RecordingListener();
            long seen = big.currentSeq(ORDERS) / 2; // resume from somewhere in the past
            big.subscribe(l, List.of(ORDERS), Map.of(ORDERS, ResumePoint.after("e1", seen)));
            listeners.add(l);
            Thread.onSpinWait();
        }
        publisher.join();
        assertThat(listeners).isNotEmpty();
        for (RecordingListener l : listeners) {
            long first = l.seqs.isEmpty() ? 5_001 : l.seqs.get(0);
            assertThat(l.seqs).containsExactlyElementsOf(LongStream.rangeClosed(first, 5_000).boxed().toList());
        }
    }
}
