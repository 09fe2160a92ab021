package dev.tideline.fanout.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteBudgetTest {
    @Test
    void refusesWhatDoesNotFitAndTakesItBackWhenWritten() {
        ByteBudget b = new ByteBudget(100);

        assertThat(b.tryReserve(60)).isTrue();
        assertThat(b.tryReserve(41)).isFalse();
        assertThat(b.pendingBytes()).isEqualTo(60); // a refusal takes nothing
        assertThat(b.tryReserve(40)).isTrue();
        b.release(60);
        assertThat(b.pendingBytes()).isEqualTo(40);
        assertThat(b.tryReserve(60)).isTrue();
        assertThat(b.tryReserve(1)).isFalse();
    }

    @Test
    void aSingleMessageLargerThanTheBoundNeverFits() {
        assertThat(new ByteBudget(10).tryReserve(11)).isFalse();
        assertThatThrownBy(() -> new ByteBudget(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
