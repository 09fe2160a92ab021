package dev.tideline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ConfigChoicesTest {
    enum Mode { AUTO, CHANGE_STREAM, SCAN }

    @Test
    void namesAreLowerCamelCaseAndParseIgnoringCaseAndBlanks() {
        assertThat(ConfigChoices.names(Mode.class)).containsExactly("auto", "changeStream", "scan");
        assertThat(ConfigChoices.parse(Mode.class, "mode", " ChangeStream ")).isEqualTo(Mode.CHANGE_STREAM);
        assertThat(ConfigChoices.parse(Mode.class, "mode", "SCAN")).isEqualTo(Mode.SCAN);
        assertThat(ConfigChoices.validator(Mode.class).toString()).contains("changeStream");
    }

    @Test
    void anUnknownNameIsRefusedWithTheKeyAndTheNames() {
        assertThatThrownBy(() -> ConfigChoices.parse(Mode.class, "mode", "change_stream"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("mode")
                .hasMessageContaining("auto, changeStream, scan");
    }
}
