package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.GatewayProcess;
import dev.tideline.it.fanout.HeadlessChromium;
import dev.tideline.standin.MongoFixture;
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
import dev.tideline.it.support.Waits;

/**
 * The gateway as users run it (the built target/fanout-gateway distribution, its own JVM) and its
 * demo page in headless Chromium: the tenant's documents as a live table; an insert adds a row, an
 * update changes it in place, a delete at the source removes it within 2 s; another tenant's
 * documents never show.
 */
class FanoutBrowserIT {
    private static final String DB = "fanout_web";
    private static final String PREFIX = "fweb";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ROWS = "[...document.querySelectorAll('#docs tr.doc')].map(r => r.cells[1].textContent + ' ' "
            + "+ r.cells[2].textContent).join('\\n')";

    @Test
    void theDemoPageShowsTheTenantsDocumentsLive() throws Exception {
        TestStack stack = TestStack.shared();
        Path work = stack.workDir().resolve("fanout-browser");
        Files.createDirectories(work);
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoCollection<Document> orders = mongo.client().getDatabase(DB).getCollection("orders");
            orders.insertOne(new Document("_id", "seed").append("tenant", "acme").append("label", "before the page"));
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
                    // from=earliest: the document written before the page opened is in the table
                    chromium.awaitContains(ROWS, "before the page", WAIT);
                    orders.insertOne(new Document("_id", "other-tenant").append("tenant", "globex").append("label", "not for acme"));
                    orders.insertOne(new Document("_id", "from-the-test").append("tenant", "acme").append("label", "hello browser"));
                    Duration shown = chromium.awaitContains(ROWS, "hello browser", WAIT);
                    orders.updateOne(new Document("_id", "from-the-test"), new Document("$set", new Document("label", "changed in place")));
                    Duration updated = chromium.awaitContains(ROWS, "changed in place", WAIT);
                    String rows = chromium.evaluate(ROWS);
                    assertThat(rows).doesNotContain("hello browser").doesNotContain("not for acme");
                    assertThat(chromium.evaluate("document.querySelectorAll('#docs tr.doc').length")).isEqualTo("2");

                    long deleteAt = System.nanoTime();
                    orders.deleteOne(new Document("_id", "from-the-test"));
                    Duration removed = awaitRowGone(chromium, "from-the-test", deleteAt);
                    System.out.printf("fanout browser: insert shown after %d ms, update after %d ms, the row removed %d ms after "
                            + "the delete at the source; rows now: %s%n", shown.toMillis(), updated.toMillis(), removed.toMillis(),
                            chromium.evaluate(ROWS).replace('\n', '|'));
                    assertThat(removed).isLessThanOrEqualTo(Duration.ofSeconds(2));
                    assertThat(chromium.evaluate("document.querySelectorAll('#docs tr.doc').length")).isEqualTo("1");
                    assertThat(chromium.evaluate("document.getElementById('notes').textContent")).isEmpty();
                    clientResumesWithItsLastEventId(chromium);
                }
            } finally {
                stack.rest().deleteConnector("fanout-browser-it");
            }
        }
    }

    /** Polls the table every 20 ms until no row shows the id; the time from the delete's write. */
    private static Duration awaitRowGone(HeadlessChromium chromium, String id, long since) throws Exception {
        Duration left = WAIT.minusNanos(System.nanoTime() - since);
        Waits.until(left.isNegative() ? Duration.ofMillis(1) : left, Duration.ofMillis(20), () -> chromium.evaluate(ROWS),
                rows -> !rows.contains(id),
                rows -> "the row of " + id + " was still on the page " + WAIT.toSeconds() + " s after its delete; rows: " + rows);
        return Duration.ofNanos(System.nanoTime() - since);
    }

    /** The served client's own logic, in the browser, against a scripted event stream. */
    private static void clientResumesWithItsLastEventId(HeadlessChromium chromium) throws Exception {
        String script;
        try (var in = FanoutBrowserIT.class.getResourceAsStream("/dev/tideline/it/fanout/client-gap-check.js")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        chromium.execute(script);
        chromium.awaitContains("window.__gapCheck.done", "true", WAIT);
        String steps = chromium.evaluate("window.__gapCheck.steps.join(' | ')");
        System.out.println("fanout client check: " + steps + " | applied " + chromium.evaluate("window.__gapCheck.got.join(',')")
                + " | states " + chromium.evaluate("window.__gapCheck.states.join(',')"));
        assertThat(steps).isEqualTo("last id c20 | first closed=true | resumed with c20 | after error resumed with c40");
        assertThat(chromium.evaluate("window.__gapCheck.got.join(',')")).isEqualTo("5,9,21");
        assertThat(chromium.evaluate("window.__gapCheck.lost.join(',')")).isEqualTo("beyond-retention");
        assertThat(chromium.evaluate("window.__gapCheck.states.join(',')")).startsWith("connecting,live,resuming,resuming,catching-up,live,resuming");
    }
}
