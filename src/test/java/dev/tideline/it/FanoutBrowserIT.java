package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.GatewayProcess;
import dev.tideline.it.fanout.HeadlessChromium;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The gateway as users run it (the built target/fanout-gateway distribution, its own JVM) and
 * its demo page in headless Chromium: a change written to MongoDB appears on the page; another
 * tenant's does not.
 */
class FanoutBrowserIT {
    private static final String DB = "fanout_web";
    private static final String PREFIX = "fweb";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theDemoPageShowsAChangeWrittenToMongo() throws Exception {
        TestStack stack = TestStack.shared();
        Path work = stack.workDir().resolve("fanout-browser");
        Files.createDirectories(work);
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoCollection<Document> orders = mongo.client().getDatabase(DB).getCollection("orders");
            orders.insertOne(new Document("_id", "seed").append("tenant", "seed"));
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), DB, PREFIX, ValueFormat.JSON, 1);
            config.put("tenant.field", "tenant");
            stack.rest().putConnector("fanout-browser-it", config);
            try (GatewayProcess gateway = GatewayProcess.start(work, FanoutFixture.settings(stack.bootstrapServers(), PREFIX, Map.of()),
                    List.of("-Xmx256m"))) {
                String baseUrl = gateway.baseUrl();
                stack.rest().awaitRunning("fanout-browser-it", 1, WAIT);
                TopicReader.readUntil(stack.bootstrapServers(), PREFIX + "." + DB + ".orders", 1, WAIT);
                String token = new JwtVerifier(FanoutFixture.SECRET.getBytes(StandardCharsets.UTF_8), 0)
                        .issue("browser", "acme", List.of(DB + ".*.acme"), System.currentTimeMillis() / 1000 + 600);
                String page = baseUrl + "/demo.html#token=" + token + "&channels=" + DB + ".orders.acme";
                try (HeadlessChromium chromium = HeadlessChromium.open(page, work.resolve("chromium-profile"))) {
                    chromium.awaitContains("document.getElementById('status').textContent", "live", WAIT);
                    orders.insertOne(new Document("_id", "other-tenant").append("tenant", "globex").append("label", "not for acme"));
                    orders.insertOne(new Document("_id", "from-the-test").append("tenant", "acme").append("label", "hello browser"));
                    Duration shown = chromium.awaitContains("document.getElementById('changes').innerText", "hello browser", WAIT);
                    String table = chromium.evaluate("document.getElementById('changes').innerText");
                    System.out.printf("fanout browser: the change appeared on the demo page %d ms after the write; rows: %s%n",
                            shown.toMillis(), chromium.evaluate("document.querySelectorAll('tr.change').length"));
                    assertThat(table).contains("from-the-test").contains("fanout_web.orders.acme").doesNotContain("not for acme");
                    clientResumesAfterAGapAndSkipsReplays(chromium);
                }
            } finally {
                stack.rest().deleteConnector("fanout-browser-it");
            }
        }
    }

    /** The served client's own logic, in the browser, against a scripted event stream. */
    private static void clientResumesAfterAGapAndSkipsReplays(HeadlessChromium chromium) throws Exception {
        String script;
        try (var in = FanoutBrowserIT.class.getResourceAsStream("/dev/tideline/it/fanout/client-gap-check.js")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        chromium.execute(script);
        chromium.awaitContains("window.__gapCheck.done", "true", WAIT);
        String steps = chromium.evaluate("window.__gapCheck.steps.join(' | ')");
        System.out.println("fanout client gap check: " + steps + " | applied " + chromium.evaluate("window.__gapCheck.got.join(',')"));
        assertThat(steps).isEqualTo("gap emitted; first closed=true | resumed with e1:2 | after disconnect resumed with e1:10");
        assertThat(chromium.evaluate("window.__gapCheck.got.join(',')")).isEqualTo("1,2,3,4,10");
        assertThat(chromium.evaluate("window.__gapCheck.lost.join(',')")).isEqualTo("beyond-history");
    }
}
