package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PUT /connector-plugins/.../config/validate on the real worker answers each mistake on its own key. */
class SinkValidateIT {
    @Test
    void badConfigIsAnsweredOnTheRightKeyWithoutEchoingThePassword() throws Exception {
        TestStack stack = TestStack.shared();
        assertThat(stack.rest().connectorPlugins()).contains(SinkItSupport.SINK_CLASS);
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Map<String, String> bad = Map.of(
                "name", "sink-validate",
                "topics", "sink-it-validate",
                "mongodb.uri", "mongodb://alice:pa55-w0rd@127.0.0.1:" + closed + "/",
                "mongodb.connect.timeout.ms", "1000",
                "collection.include", "shop\\.(orders",
                "topic.namespace.map", "{\"a\": \"db.coll\",");

        Map<String, List<String>> errors = stack.rest().validate(SinkItSupport.SINK_CLASS, bad);
        System.out.println("validate: " + errors);

        assertThat(errors).containsOnlyKeys("mongodb.uri", "collection.include", "topic.namespace.map");
        assertThat(errors.get("mongodb.uri").get(0)).contains("cannot reach the destination at 127.0.0.1:" + closed)
                .doesNotContain("pa55-w0rd");
        assertThat(errors.get("collection.include").get(0)).contains("regular expression");
        assertThat(errors.get("topic.namespace.map").get(0)).contains("JSON");

        try (MongoFixture up = MongoFixture.withOplog()) {
            Map<String, List<String>> none = stack.rest().validate(SinkItSupport.SINK_CLASS,
                    Map.of("name", "sink-validate", "topics", "sink-it-validate", "mongodb.uri", up.uri()));
            assertThat(none).isEmpty();
        }
    }
}
