package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PUT /connector-plugins/.../config/validate on the real worker answers each source mistake on its own key. */
class SourceValidateIT {
    @Test
    void badSourceConfigIsAnsweredOnTheRightKey() throws Exception {
        TestStack stack = TestStack.shared();
        assertThat(stack.rest().connectorPlugins()).contains(SourceItSupport.SOURCE_CLASS);

        Map<String, String> bad = new HashMap<>(Map.of(
                "name", "source-validate",
                "mongodb.uri", "mongodb://alice:pa55-w0rd@127.0.0.1:27017:99/",
                "database.include", "shop\\.(orders",
                "mode", "sometimes",
                "filters", "{\"shop.orders\": {\"status\": "));
        Map<String, List<String>> errors = stack.rest().validate(SourceItSupport.SOURCE_CLASS, bad);
        System.out.println("validate (malformed): " + errors);
        assertThat(errors).containsOnlyKeys("mongodb.uri", "database.include", "mode", "filters");
        assertThat(errors.get("mongodb.uri").get(0)).contains("not a valid MongoDB connection string").doesNotContain("pa55-w0rd");
        assertThat(errors.get("database.include").get(0)).contains("regular expression");
        assertThat(errors.get("mode").get(0)).contains("sometimes").contains("changeStream");
        assertThat(errors.get("filters").get(0)).contains("JSON");

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        long started = System.nanoTime();
        Map<String, List<String>> unreachable = stack.rest().validate(SourceItSupport.SOURCE_CLASS, Map.of(
                "name", "source-validate",
                "mongodb.uri", "mongodb://alice:pa55-w0rd@127.0.0.1:" + closed + "/",
                "mongodb.connect.timeout.ms", "1000"));
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("validate (unreachable, " + millis + " ms): " + unreachable);
        assertThat(unreachable).containsOnlyKeys("mongodb.uri");
        assertThat(unreachable.get("mongodb.uri").get(0)).contains("cannot reach the source at 127.0.0.1:" + closed)
                .contains("within 1000 ms").doesNotContain("pa55-w0rd");

        try (MongoFixture up = MongoFixture.withOplog()) {
            assertThat(stack.rest().validate(SourceItSupport.SOURCE_CLASS, Map.of("name", "source-validate",
                    "mongodb.uri", up.uri(), "database.include", "shop", "mode", "changeStream"))).isEmpty();
        }
    }
}
