package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.Namespace;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskOwnershipTest {

    @Test
    void everyCollectionHasExactlyOneOwnerAndManySpreadEvenly() {
        int tasks = 4;
        int[] owned = new int[tasks];
        for (int i = 0; i < 2_000; i++) {
            Namespace ns = new Namespace("shop", "c" + i);
            int owners = 0;
            for (int t = 0; t < tasks; t++) {
                if (new TaskOwnership(t, tasks).owns(ns)) {
                    owners++;
                    owned[t]++;
                }
            }
            assertThat(owners).isEqualTo(1);
        }
        for (int n : owned) {
            assertThat(n).isBetween(400, 600);
        }
    }

    @Test
    void theRuleIsStableAcrossRunsAndOneTaskOwnsAll() {
        Namespace ns = new Namespace("shop", "orders");
        assertThat(new TaskOwnership(0, 1).owns(ns)).isTrue();
        // CRC-32 of "shop.orders": fixed, so a restart (or another worker) finds the same owner
        boolean[] owners = new boolean[3];
        for (int t = 0; t < 3; t++) {
            owners[t] = new TaskOwnership(t, 3).owns(ns);
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update("shop.orders".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(owners[(int) (crc.getValue() % 3)]).isTrue();
    }

    @Test
    void aConfigNotWrittenByTheConnectorIsRefused() {
        assertThatThrownBy(() -> TaskOwnership.of(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("configured by the connector");
        assertThatThrownBy(() -> new TaskOwnership(3, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
