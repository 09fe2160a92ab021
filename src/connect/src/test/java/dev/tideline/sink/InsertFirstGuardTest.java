package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.doc;
import static dev.tideline.sink.TestRecords.envelopeRecord;
import static dev.tideline.sink.TestRecords.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.guard.VersionStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stale-write guard's "insert first" path: after a batch that found no entry for any of its documents, the next
 * batch's whole-document writes insert their entries without reading them; an entry found present is then read and
 * decided like any other (a stale change is not written), and the collection reads first again.
 */
class InsertFirstGuardTest {
    private final DestinationServer server = new DestinationServer();
    /** Reads of the sidecar (find commands on it). */
    private final AtomicInteger sidecarReads = new AtomicInteger();
    private final MongoClient client = MongoClients.create(MongoClientSettings.builder()
            .applyConnectionString(new ConnectionString(server.uri))
            .addCommandListener(new CommandListener() {
                @Override
                public void commandStarted(CommandStartedEvent e) {
                    if ("find".equals(e.getCommandName())
                            && VersionStore.COLLECTION.equals(e.getCommand().getString("find").getValue())) {
                        sidecarReads.incrementAndGet();
                    }
                }
            }).build());
    private final BatchApplier applier = BatchApplier.create(new SinkConfig(new HashMap<>(Map.of("mongodb.uri", server.uri,
            "database", "dest"))), client);

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    private static SinkRecord change(long offset, Op op, int id, String name, int clusterSeconds) {
        return envelopeRecord("orders-topic", offset, event(op, SHOP_ORDERS, id, op == Op.DELETE ? null : doc(id, name),
                clusterSeconds), ValueFormat.BSON);
    }

    private String name(int id) {
        BsonDocument d = server.client.getDatabase("dest").getCollection("orders", BsonDocument.class)
                .find(new BsonDocument("_id", new BsonInt32(id))).first();
        return d == null ? null : d.getString("name").getValue();
    }

    @Test
    void afterABatchOfNewDocumentsWritesSkipTheReadAndAStaleOneFoundPresentIsNotWritten() {
        BatchOutcome first = applier.apply(List.of(change(0, Op.INSERT, 1, "one", 10), change(1, Op.INSERT, 2, "two", 10),
                change(2, Op.DELETE, 9, null, 50)));
        assertThat(first.stale()).isZero();
        assertThat(sidecarReads.get()).isEqualTo(1); // read first: nothing known about the collection yet

        sidecarReads.set(0);
        BatchOutcome second = applier.apply(List.of(change(3, Op.INSERT, 3, "three", 11),
                change(4, Op.REPLACE, 1, "older", 5),      // present at 10: stale
                change(5, Op.INSERT, 2, "two", 10),        // present at 10: a replay, applied again
                change(6, Op.INSERT, 9, "before-delete", 40))); // present as deleted at 50: stale

        assertThat(second.stale()).isEqualTo(2);
        assertThat(second.written()).isEqualTo(2);
        assertThat(sidecarReads.get()).isEqualTo(1); // no read before the inserts, one for the entries found present
        assertThat(name(1)).isEqualTo("one");
        assertThat(name(2)).isEqualTo("two");
        assertThat(name(3)).isEqualTo("three");
        assertThat(name(9)).isNull();

        // the clash sends the collection back to reading first, and the stored versions still guard
        sidecarReads.set(0);
        BatchOutcome third = applier.apply(List.of(change(7, Op.REPLACE, 3, "older-three", 8), change(8, Op.REPLACE, 1, "newer", 12)));
        assertThat(sidecarReads.get()).isEqualTo(1);
        assertThat(third.stale()).isEqualTo(1);
        assertThat(name(3)).isEqualTo("three");
        assertThat(name(1)).isEqualTo("newer");
    }

    @Test
    void aGuessedWriteRecordsItsVersionSoALaterStaleChangeIsStopped() {
        applier.apply(List.of(change(0, Op.INSERT, 1, "one", 10)));
        sidecarReads.set(0);
        applier.apply(List.of(change(1, Op.INSERT, 2, "two", 20))); // guessed: inserted without a read
        assertThat(sidecarReads.get()).isZero();

        BatchOutcome late = applier.apply(List.of(change(2, Op.REPLACE, 2, "stale", 15)));

        assertThat(late.stale()).isEqualTo(1);
        assertThat(name(2)).isEqualTo("two");
    }
}
