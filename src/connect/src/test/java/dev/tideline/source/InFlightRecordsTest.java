package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InFlightRecordsTest {
    @Test
    void roomUntilTheBoundIsReached() throws InterruptedException {
        InFlightRecords inFlight = new InFlightRecords(3);
        assertThat(inFlight.awaitRoom(0)).isTrue();
        inFlight.handedOver(2);
        assertThat(inFlight.awaitRoom(0)).isTrue();
        inFlight.handedOver(2); // a poll may overshoot the bound by its own size
        assertThat(inFlight.awaitRoom(20)).isFalse();
        assertThat(inFlight.count()).isEqualTo(4);
    }

    @Test
    void anAcknowledgementBelowTheBoundWakesTheWaitingPoll() throws Exception {
        InFlightRecords inFlight = new InFlightRecords(2);
        inFlight.handedOver(3);
        CompletableFuture<Boolean> poll = CompletableFuture.supplyAsync(() -> {
            try {
                return inFlight.awaitRoom(10_000);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        inFlight.acknowledged();
        assertThat(poll.isDone()).isFalse(); // still 2 in flight: at the bound
        inFlight.acknowledged();
        assertThat(poll.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(inFlight.count()).isEqualTo(1);
    }

    @Test
    void moreAcknowledgementsThanRecordsNeverGoBelowZero() throws InterruptedException {
        InFlightRecords inFlight = new InFlightRecords(1);
        inFlight.acknowledged();
        inFlight.handedOver(1);
        assertThat(inFlight.awaitRoom(0)).isFalse();
    }

    @Test
    void aBoundBelowOneIsRefused() {
        assertThatThrownBy(() -> new InFlightRecords(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }
}
