package dev.tideline.verify.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.verify.cli.VerifyArguments;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/** docs/verify.md stays true: its settings table is the ConfigDef's, its connector example is valid, its options exist. */
class VerifyDocsTest {
    private static final Path PAGE = Path.of("docs/verify.md");

    @Test
    void theSettingsTableIsGeneratedFromTheConfigDef() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        assertThat(page).as("docs/verify.md is stale: run ./docs/generate")
                .isEqualTo(VerifyConfigReference.withTable(page));
        for (String key : VerifyConfig.CONFIG_DEF.names()) {
            assertThat(page).contains("`" + key + "`");
        }
    }

    @Test
    void theConnectorExampleIsValid() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int start = page.indexOf("```json\n{\n  \"connector.class\": \"dev.tideline.verify.connect.VerifyConnector\"");
        assertThat(start).isPositive();
        String json = page.substring(start + "```json\n".length(), page.indexOf("```", start + 7));
        JsonNode node = new ObjectMapper().readTree(json);
        Map<String, String> config = new HashMap<>();
        node.fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
        for (ConfigValue v : VerifyConfig.CONFIG_DEF.validate(config)) {
            assertThat(v.errorMessages()).as(v.name()).isEmpty();
        }
        config.keySet().stream().filter(k -> k.startsWith("verify.")).forEach(k -> assertThat(VerifyConfig.CONFIG_DEF.names()).contains(k));
        new VerifyConfig(config).settings();
    }

    @Test
    void everyOptionOfTheCommandIsDocumented() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        for (String line : VerifyArguments.USAGE.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("--")) {
                String option = trimmed.split("[ ,=]")[0];
                assertThat(page).as(option).contains("`" + option);
            }
        }
    }
}
