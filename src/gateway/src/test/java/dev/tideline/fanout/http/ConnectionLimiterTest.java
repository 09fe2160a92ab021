package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectionLimiterTest {
    @Test
    void capsConnectionsInAllAndPerAddress() {
        ConnectionLimiter l = new ConnectionLimiter(4, 2);

        assertThat(l.tryAcquire("a")).isEqualTo(ConnectionLimiter.Verdict.ACCEPTED);
        assertThat(l.tryAcquire("a")).isEqualTo(ConnectionLimiter.Verdict.ACCEPTED);
        assertThat(l.tryAcquire("a")).isEqualTo(ConnectionLimiter.Verdict.TOO_MANY_FROM_ADDRESS);
        assertThat(l.tryAcquire("b")).isEqualTo(ConnectionLimiter.Verdict.ACCEPTED);
        assertThat(l.tryAcquire("c")).isEqualTo(ConnectionLimiter.Verdict.ACCEPTED);
        assertThat(l.tryAcquire("d")).isEqualTo(ConnectionLimiter.Verdict.TOO_MANY);
        assertThat(l.open()).isEqualTo(4);
        l.release("a");
        assertThat(l.openFrom("a")).isEqualTo(1);
        assertThat(l.tryAcquire("d")).isEqualTo(ConnectionLimiter.Verdict.ACCEPTED);
        l.release("d");
        assertThat(l.openFrom("d")).isZero();
    }
}
