package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.config.ConfigExamples;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every connector example in config/ (found by pattern), with its placeholders pointing at a live
 * server, through the real worker's validate endpoint: connector plugin present, converters and
 * transforms loadable, topic-creation settings accepted, every key valid, the server reachable.
 * (config/worker.properties is what every test worker starts from: ConnectWorker.)
 */
class ConfigExamplesIT {
    @Test
    void everyExampleValidatesOnTheWorker() {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            List<ConfigExamples.Example> examples = ConfigExamples.connectors(mongo.uri());
            Map<String, Map<String, List<String>>> failures = new LinkedHashMap<>();
            for (ConfigExamples.Example e : examples) {
                Map<String, List<String>> errors = stack.rest().validate(e.connectorClass(), e.config());
                System.out.printf("%s (%s): %s%n", e, e.connectorClass(), errors.isEmpty() ? "valid" : errors);
                if (!errors.isEmpty()) {
                    failures.put(e.toString(), errors);
                }
            }
            assertThat(examples).hasSizeGreaterThanOrEqualTo(8);
            assertThat(failures).isEmpty();
        }
    }
}
