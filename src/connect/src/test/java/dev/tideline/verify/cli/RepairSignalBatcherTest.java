package dev.tideline.verify.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.cli.RepairSignalBatcher.CollectionRepair;
import dev.tideline.verify.cli.RepairSignalBatcher.Signal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class RepairSignalBatcherTest {
    private static final CollectionPair ORDERS = new CollectionPair(new Namespace("shop", "orders"), new Namespace("shop_replica", "orders"));
    private static final CollectionPair PEOPLE = new CollectionPair(new Namespace("crm", "people"), new Namespace("shop_replica", "people"));

    private final List<Signal> signals = new ArrayList<>();
    private final RepairSignalBatcher batcher = new RepairSignalBatcher(signals::add);

    private void add(FindingKind kind, CollectionPair collection, BsonValue id) {
        batcher.accept(new Finding(kind, collection, id));
    }

    private static BsonInt32 id(int i) {
        return new BsonInt32(i);
    }

    @Test
    void everyDifferenceKindIsRepairedAndInFlightIdsAreOnlyCounted() {
        add(FindingKind.MISSING, ORDERS, id(1));
        add(FindingKind.EXTRA, ORDERS, id(2));
        add(FindingKind.DIFFERENT, ORDERS, new BsonString("a"));
        batcher.accept(new Finding(FindingKind.IN_FLIGHT, ORDERS, id(4), FindingKind.DIFFERENT));
        batcher.accept(new Finding(FindingKind.IN_FLIGHT, ORDERS, id(5), FindingKind.MISSING));
        batcher.accept(new Finding(FindingKind.IN_FLIGHT, PEOPLE, id(6), FindingKind.EXTRA));

        List<CollectionRepair> repairs = batcher.finish();

        assertThat(signals).containsExactly(new Signal(ORDERS.source(), List.of(id(1), id(2), new BsonString("a"))));
        assertThat(repairs).containsExactly(new CollectionRepair(ORDERS.source(), 3, 1, 2),
                new CollectionRepair(PEOPLE.source(), 0, 0, 1));
    }

    @Test
    void eachSourceCollectionGetsItsOwnSignalsKeyedOnTheSourceNamespace() {
        add(FindingKind.MISSING, ORDERS, id(1));
        add(FindingKind.MISSING, PEOPLE, id(1));
        add(FindingKind.DIFFERENT, ORDERS, id(2));
        add(FindingKind.EXTRA, PEOPLE, new BsonObjectId(new ObjectId("65a0f1c2e4b0a1b2c3d4e5f6")));

        List<CollectionRepair> repairs = batcher.finish();

        assertThat(signals).containsExactly(new Signal(new Namespace("shop", "orders"), List.of(id(1), id(2))),
                new Signal(new Namespace("crm", "people"), List.of(id(1), new BsonObjectId(new ObjectId("65a0f1c2e4b0a1b2c3d4e5f6")))));
        assertThat(repairs).extracting(CollectionRepair::collection, CollectionRepair::ids, CollectionRepair::signals)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ORDERS.source(), 2L, 1),
                        org.assertj.core.groups.Tuple.tuple(PEOPLE.source(), 2L, 1));
    }

    @Test
    void aFullSignalIsHandedOnAtOnceAndEachHoldsAtMost100000Ids() {
        for (int i = 0; i < 250_001; i++) {
            add(FindingKind.MISSING, ORDERS, id(i));
            if (i % 3 == 0) {
                add(FindingKind.EXTRA, PEOPLE, id(i)); // another collection in between does not disturb the count
            }
        }
        // bounded memory: the two full signals left before the end of the report
        assertThat(signals).extracting(s -> s.ids().size()).containsExactly(100_000, 100_000);

        List<CollectionRepair> repairs = batcher.finish();

        List<Signal> orders = signals.stream().filter(s -> s.collection().equals(ORDERS.source())).toList();
        assertThat(orders).extracting(s -> s.ids().size()).containsExactly(100_000, 100_000, 50_001);
        List<BsonValue> all = orders.stream().flatMap(s -> s.ids().stream()).toList();
        assertThat(all).hasSize(250_001);
        for (int i = 0; i < all.size(); i++) {
            assertThat(all.get(i)).isEqualTo(id(i)); // every id once, in report order
        }
        assertThat(repairs).containsExactly(new CollectionRepair(ORDERS.source(), 250_001, 3, 0),
                new CollectionRepair(PEOPLE.source(), 83_334, 1, 0));
    }

    @Test
    void longIdsCloseASignalBeforeItsDocumentNears16Mb() {
        String kilobyte = "x".repeat(1_000);
        for (int i = 0; i < 20_000; i++) {
            add(FindingKind.DIFFERENT, ORDERS, new BsonString(i + kilobyte)); // 20 MB of ids
        }
        List<CollectionRepair> repairs = batcher.finish();

        assertThat(signals).hasSizeGreaterThan(2);
        assertThat(signals.stream().mapToInt(s -> s.ids().size()).sum()).isEqualTo(20_000);
        for (Signal s : signals) {
            int bytes = new RawBsonDocument(RepairSignalWriter.document(s, Instant.EPOCH, "verify-x.jsonl"), new BsonDocumentCodec())
                    .getByteBuffer().remaining();
            assertThat(bytes).isLessThanOrEqualTo((int) RepairSignalBatcher.MAX_ID_BYTES_PER_SIGNAL + 1_000);
        }
        assertThat(repairs).containsExactly(new CollectionRepair(ORDERS.source(), 20_000, signals.size(), 0));
    }

    @Test
    void theSizeOfAnIdIsNeverUnderestimated() {
        for (BsonValue id : List.<BsonValue>of(id(7), new BsonInt64(7), new BsonObjectId(new ObjectId()), new BsonString("é€𝄞 abc"),
                new BsonDocument("a", id(1)).append("b", new BsonString("zz")), new BsonBinary(new byte[300]), new BsonDateTime(5))) {
            int empty = encoded(new BsonDocument("ids", new org.bson.BsonArray()));
            int one = encoded(new BsonDocument("ids", new org.bson.BsonArray(List.of(id))));
            assertThat(RepairSignalBatcher.encodedSize(id)).as(id.toString()).isBetween((long) one - empty, (long) one - empty + 8);
        }
    }

    @Test
    void aSignalDocumentSaysWhichCollectionIdsWhoWhenAndFromWhichReport() {
        BsonDocument d = RepairSignalWriter.document(new Signal(ORDERS.source(), List.of(id(17), id(42), new BsonString("a"))),
                Instant.parse("2026-12-01T10:15:30Z"), "verify-20261201-101530.jsonl");
        assertThat(d).isEqualTo(BsonDocument.parse("""
                {collection: "orders", ids: [17, 42, "a"], by: "tideline-verify", at: {$date: "2026-12-01T10:15:30Z"},
                 report: "verify-20261201-101530.jsonl"}"""));
        assertThat(d.containsKey("_id")).as("left to the driver").isFalse();
    }

    private static int encoded(BsonDocument d) {
        return new RawBsonDocument(d, new BsonDocumentCodec()).getByteBuffer().remaining();
    }
}
