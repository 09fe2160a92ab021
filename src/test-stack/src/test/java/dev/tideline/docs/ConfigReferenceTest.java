package dev.tideline.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.sink.config.SinkConfig;
import dev.tideline.source.config.SourceConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/** CI fails when docs/config-reference.md drifts from the code, or a key lacks documentation. */
class ConfigReferenceTest {
    @Test
    void committedReferenceMatchesTheConfigDefs() throws Exception {
        String committed = Files.readString(Path.of("docs/config-reference.md"), StandardCharsets.UTF_8);
        assertThat(committed)
                .as("docs/config-reference.md is out of date: run ./docs/generate and commit the result")
                .isEqualTo(ConfigReference.render());
    }

    @Test
    void everyKeyIsDocumentedAndGrouped() {
        for (ConfigDef def : new ConfigDef[] {SourceConfig.CONFIG_DEF, SinkConfig.configDef()}) {
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                assertThat(key.documentation).as("documentation of " + key.name).isNotBlank();
                assertThat(key.group).as("group of " + key.name).isNotBlank();
                assertThat(ConfigReference.render()).contains("`" + key.name + "`");
            }
        }
    }
}
