package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.SelectionSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What validate() checks of the user's privileges, by change stream scope. */
class SourceValidationTest {
    @Test
    void aDeploymentStreamAlsoNeedsChangeStreamAndFindOnEveryDatabase() {
        Map<String, List<String>> perDatabase = SourceValidation.privilegeNeeds(Map.of(SelectionSettings.DATABASE_INCLUDE, "shop"));
        Map<String, List<String>> deployment = SourceValidation.privilegeNeeds(Map.of(SelectionSettings.DATABASE_INCLUDE, "shop",
                CaptureSettings.STREAM_SCOPE, "deployment"));
        Map<String, List<String>> scanning = SourceValidation.privilegeNeeds(Map.of(SelectionSettings.DATABASE_INCLUDE, "shop",
                CaptureSettings.STREAM_SCOPE, "deployment", CaptureSettings.MODE, "scan"));
        assertThat(perDatabase).containsOnlyKeys("shop");
        assertThat(deployment).containsOnlyKeys("shop", "");
        assertThat(deployment.get("")).containsExactly("find", "changeStream");
        assertThat(scanning).containsOnlyKeys("shop");
    }
}
