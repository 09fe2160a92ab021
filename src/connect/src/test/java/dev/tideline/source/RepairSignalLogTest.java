package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.source.repair.SignalStatus;
import dev.tideline.standin.MongoFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * A real log site fed a hostile name: a repair signal naming a collection with a newline and an ANSI escape
 * in it is refused in one log line (the worker's log cannot be given a forged entry), and marked refused.
 */
class RepairSignalLogTest {
    private static final String CONNECTOR = "shop-source";

    @Test
    void aNewlineInASignalsCollectionNameStaysInOneLogLine() throws Exception {
        String hostile = "orders\n2026-12-03 10:00:00 ERROR forged entry \u001b[2J";
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (MongoFixture mongo = MongoFixture.withoutOplog()) {
            MongoCollection<BsonDocument> signals = mongo.client().getDatabase("shop")
                    .getCollection(RepairSignals.COLLECTION, BsonDocument.class);
            signals.insertOne(new BsonDocument("_id", new BsonInt32(7)).append("collection", new BsonString(hostile)));
            CollectionRepairs.Capture capture = new CollectionRepairs.Capture(ns -> null, List::of, ns -> true, db -> null,
                    c -> 1, ns -> RepairProgress.NONE);
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8)); // where slf4j-simple writes
            try (CollectionRepairs repairs = new CollectionRepairs(mongo.client(), capture, CONNECTOR, 100, 2, new TaskThreads("log-test"))) {
                repairs.signalled("shop", List.of(new BsonInt32(7)));
                awaitRefusalLogged(captured);
            } finally {
                System.setErr(stderr);
            }
            assertThat(SignalStatus.of(signals.find().first(), CONNECTOR)).isEqualTo(SignalStatus.State.REFUSED);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        System.err.print(log);
        List<String> lines = Arrays.stream(log.split("\n")).filter(l -> !l.isBlank()).toList();
        assertThat(lines).as("one line for the refusal").hasSize(1);
        assertThat(lines.get(0)).contains("Repair signal BsonInt32{value=7} in shop._tideline_signals is refused")
                .contains("shop.orders\\n2026-12-03 10:00:00 ERROR forged entry \\u001b[2J")
                .doesNotContain("\u001b").doesNotContain("\r");
        assertThat(lines).noneMatch(l -> l.startsWith("2026-12-03"));
    }

    /** The refusal is decided on the repairs' own thread: wait for its line (at most 20 s). */
    private static void awaitRefusalLogged(ByteArrayOutputStream captured) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!captured.toString(StandardCharsets.UTF_8).contains("is refused")) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no refusal logged within 20 s: " + captured.toString(StandardCharsets.UTF_8));
            }
            Thread.sleep(50);
        }
    }
}
