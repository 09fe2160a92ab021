package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.fanout.HeadlessChromium;
import dev.tideline.it.support.TestStack;
import dev.tideline.sandbox.StatusPage;
import dev.tideline.sandbox.VerifyConnectorConfig;
import dev.tideline.standin.MongoFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's status page (StatusPage) in headless Chromium while a source, a sink and a scheduled verify run: per
 * collection its phase, capture lag, copy progress, the counts at both sides and the last verify result, then a new
 * write shows up in the counts without reloading the page.
 */
class SandboxStatusPageIT {
    private static final String DB = "status_shop";
    private static final String DEST = "status_shop_copy";
    private static final String SOURCE = "status-source";
    private static final String SINK = "status-sink";
    private static final String VERIFY = "status-verify";
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String ROWS = "[...document.querySelectorAll('#rows tr.collection')].map(r => [...r.cells]"
            + ".map(c => c.textContent).join(' | ')).join('\\n')";

    @Test
    void thePageShowsEachCollectionLive() throws Exception {
        TestStack stack = TestStack.shared();
        Path work = stack.workDir().resolve("status-page");
        Files.createDirectories(work);
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoCollection<Document> orders = source.client().getDatabase(DB).getCollection("orders");
            List<Document> docs = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                docs.add(new Document("_id", i).append("total", i));
            }
            orders.insertMany(docs);
            source.client().getDatabase(DB).getCollection("customers").insertOne(new Document("_id", "c1").append("name", "Ada"));
            stack.rest().putConnector(SOURCE, SourceItSupport.sourceConfig(source.uri(), DB, "status", ValueFormat.JSON, 1));
            stack.rest().putConnector(SINK, SinkItSupport.sinkConfig("status." + DB + ".orders,status." + DB + ".customers",
                    destination.uri(), DEST, ValueFormat.JSON));
            stack.rest().putConnector(VERIFY, VerifyConnectorConfig.of(source.uri(), destination.uri(), DB, DEST, 3000));
            try (StatusPage page = StatusPage.start(stack.metricsUrl(0), stack.jmxUrl(0), SOURCE, VERIFY,
                    source.client().getDatabase(DB), destination.client().getDatabase(DEST));
                 HeadlessChromium chromium = HeadlessChromium.open(page.url(), work.resolve("chromium-profile"))) {
                chromium.awaitContains("document.getElementById('state').textContent", "live, updated", WAIT);
                chromium.awaitContains(ROWS, DB + ".orders | stream | ", WAIT);
                chromium.awaitContains(ROWS, "copy 100% (1,500 of 1,500) | 1,500 | 1,500 | equal", WAIT);
                chromium.awaitContains(ROWS, DB + ".customers | stream | ", WAIT);
                System.out.println("status page rows:\n" + chromium.evaluate(ROWS));

                // live: a write reaches the page's counts (and the verify column) without a reload
                orders.insertOne(new Document("_id", "new").append("total", 1));
                Duration shown = chromium.awaitContains(ROWS, "| 1,501 | 1,501 | ", WAIT);
                String rows = chromium.evaluate(ROWS);
                System.out.println("the new write on the page after " + shown.toMillis() + " ms:\n" + rows);
                String ordersRow = rows.lines().filter(r -> r.startsWith(DB + ".orders |")).findFirst().orElseThrow();
                String[] cells = ordersRow.split(" \\| ");
                assertThat(cells[2]).as("capture lag").matches("\\d+\\.\\d s");
                assertThat(chromium.evaluate("document.querySelectorAll('#rows tr.collection').length")).isEqualTo("2");
            } finally {
                stack.rest().deleteConnector(VERIFY);
                stack.rest().deleteConnector(SINK);
                stack.rest().deleteConnector(SOURCE);
            }
        }
    }
}
