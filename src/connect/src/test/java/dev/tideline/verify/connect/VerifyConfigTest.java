package dev.tideline.verify.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.verify.Hashing;
import dev.tideline.verify.VerifySettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class VerifyConfigTest {
    private static Map<String, String> minimal() {
        Map<String, String> m = new HashMap<>();
        m.put(VerifyConfig.SOURCE_URI, "mongodb://a");
        m.put(VerifyConfig.DESTINATION_URI, "mongodb://b");
        return m;
    }

    @Test
    void defaultsMatchTheCommand() {
        VerifyConfig c = new VerifyConfig(minimal());
        VerifySettings s = c.settings();
        assertThat(s.hashing()).isEqualTo(Hashing.AUTO);
        assertThat(s.rangeSize()).isEqualTo(VerifySettings.DEFAULT_RANGE_SIZE);
        assertThat(s.rechecks()).isEqualTo(VerifySettings.DEFAULT_RECHECKS);
        assertThat(s.recheckDelayMs()).isEqualTo(VerifySettings.DEFAULT_RECHECK_DELAY_MS);
        assertThat(s.databases()).isEmpty();
        assertThat(s.destinationDatabase()).isNull();
        assertThat(c.intervalMs()).isEqualTo(3_600_000L);
        assertThat(c.reportTopic()).isEqualTo("tideline.verify.report");
    }

    @Test
    void peersAndLists() {
        Map<String, String> m = minimal();
        m.put(VerifyConfig.PEERS, "true");
        m.put(VerifyConfig.DATABASES, "shop, crm");
        m.put(VerifyConfig.DESTINATION_DATABASE, "replica");
        m.put(VerifyConfig.IGNORE_FIELDS, "audit");
        m.put(VerifyConfig.INCLUDE, "shop\\..*");
        VerifySettings s = new VerifyConfig(m).settings();
        assertThat(s.peers()).isTrue();
        assertThat(s.databases()).containsExactly("shop", "crm");
        assertThat(s.destinationDatabase()).isEqualTo("replica");
        assertThat(s.comparison().ignoredFields()).isEqualTo(Set.of("audit", "_tl"));
        assertThat(s.collections().accepts("crm.x")).isFalse();
    }

    @Test
    void mistakesAreNamedByKey() {
        Map<String, String> m = minimal();
        m.put(VerifyConfig.HASHING, "fast");
        assertThatThrownBy(() -> new VerifyConfig(m)).isInstanceOf(ConfigException.class).hasMessageContaining(VerifyConfig.HASHING);
        m.put(VerifyConfig.HASHING, "server");
        m.put(VerifyConfig.IGNORE_FIELD_ORDER, "true");
        assertThatThrownBy(() -> new VerifyConfig(m)).hasMessageContaining(VerifyConfig.IGNORE_FIELD_ORDER);
        Map<String, String> noSource = minimal();
        noSource.remove(VerifyConfig.SOURCE_URI);
        assertThatThrownBy(() -> new VerifyConfig(noSource)).hasMessageContaining(VerifyConfig.SOURCE_URI);
        Map<String, String> fast = minimal();
        fast.put(VerifyConfig.INTERVAL_MS, "10");
        assertThatThrownBy(() -> new VerifyConfig(fast)).hasMessageContaining(VerifyConfig.INTERVAL_MS);
        assertThat(VerifyConfig.CONFIG_DEF.configKeys().get(VerifyConfig.SOURCE_URI).type.name()).isEqualTo("PASSWORD");
    }

    @Test
    void oneTaskWhateverTasksMaxSays() {
        VerifyConnector connector = new VerifyConnector();
        connector.start(minimal());
        List<Map<String, String>> tasks = connector.taskConfigs(4);
        assertThat(tasks).hasSize(1);
        assertThat(tasks.get(0)).containsEntry(VerifyConfig.SOURCE_URI, "mongodb://a").containsEntry("tideline.task.index", "0");
    }
}
