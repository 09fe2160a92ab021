package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.HeadlessChromium;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
            Process gateway = startDistribution(stack, work);
            try {
                String baseUrl = awaitBaseUrl(gateway);
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
                }
            } finally {
                gateway.destroy();
                if (!gateway.waitFor(15, TimeUnit.SECONDS)) {
                    gateway.destroyForcibly();
                }
                stack.rest().deleteConnector("fanout-browser-it");
            }
        }
    }

    /** {@code java -cp target/fanout-gateway/lib/* dev.tideline.fanout.GatewayMain <properties>}, as ./gateway runs it. */
    private static Process startDistribution(TestStack stack, Path work) throws Exception {
        Path dist = Path.of(System.getProperty("tideline.fanout.gateway.dir", "target/fanout-gateway"));
        assertThat(dist.resolve("lib")).as("the built gateway distribution (mvn package)").isDirectory();
        Path props = work.resolve("fanout-gateway.properties");
        StringBuilder sb = new StringBuilder();
        FanoutFixture.settings(stack.bootstrapServers(), PREFIX, Map.of())
                .forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        Files.writeString(props, sb.toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx256m", "-cp", dist.resolve("lib").toAbsolutePath() + "/*",
                "dev.tideline.fanout.GatewayMain", props.toString())
                .redirectErrorStream(true).start();
    }

    private static String awaitBaseUrl(Process gateway) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(), StandardCharsets.UTF_8));
        String url = null;
        StringBuilder seen = new StringBuilder();
        for (String line; url == null && (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.startsWith("fanout gateway: ")) {
                url = line.substring("fanout gateway: ".length()).split("/demo.html")[0];
            }
        }
        if (url == null) {
            throw new AssertionError("the gateway exited without serving: " + seen);
        }
        Thread drain = new Thread(() -> {
            try {
                out.transferTo(java.io.Writer.nullWriter());
            } catch (java.io.IOException ignored) {
                // exited
            }
        }, "gateway-output");
        drain.setDaemon(true);
        drain.start();
        return url;
    }
}
