package dev.tideline.sink.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.sink.decode.UpdateDescription;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class UpdateApplierTest {
    private static UpdateDescription desc(String updated, List<String> removed, List<UpdateDescription.Truncation> cut) {
        return new UpdateDescription(BsonDocument.parse(updated), removed, cut);
    }

    private static BsonDocument apply(String base, UpdateDescription... ds) {
        return UpdateApplier.apply(BsonDocument.parse(base), List.of(ds));
    }

    @Test
    void setKeepsAFieldsPositionAppendsNewFieldsAndUnsetRemoves() {
        BsonDocument out = apply("{_id: 1, a: 1, b: 2, c: 3}", desc("{a: 10, d: 4}", List.of("b"), List.of()));
        assertThat(out.toJson()).isEqualTo(BsonDocument.parse("{_id: 1, a: 10, c: 3, d: 4}").toJson());
    }

    @Test
    void dottedPathsReachIntoEmbeddedDocumentsAndArrays() {
        BsonDocument out = apply("{_id: 1, addr: {city: 'X', zip: '1'}, tags: ['a', 'b', 'c']}",
                desc("{'addr.city': 'Y', 'tags.1': 'B', 'tags.4': 'e', 'new.deep.field': true}", List.of("addr.zip"), List.of()));
        assertThat(out).isEqualTo(BsonDocument.parse(
                "{_id: 1, addr: {city: 'Y'}, tags: ['a', 'B', 'c', null, 'e'], new: {deep: {field: true}}}"));
    }

    @Test
    void truncationCutsTheArrayBeforeItsRemainingElementsAreSet() {
        BsonDocument out = apply("{_id: 1, xs: [1, 2, 3, 4], o: {ys: [1, 2]}}",
                desc("{'xs.1': 20}", List.of(), List.of(new UpdateDescription.Truncation("xs", 2),
                        new UpdateDescription.Truncation("o.ys", 0))));
        assertThat(out).isEqualTo(BsonDocument.parse("{_id: 1, xs: [1, 20], o: {ys: []}}"));
    }

    @Test
    void descriptionsApplyInOrderAndTheBaseIsLeftUntouchedEvenWhenItIsRawBson() {
        BsonDocument base = new RawBsonDocument(BsonDocument.parse("{_id: 1, a: {b: 1}}"), new org.bson.codecs.BsonDocumentCodec());
        BsonDocument out = UpdateApplier.apply(base, List.of(
                desc("{'a.b': 2}", List.of(), List.of()),
                desc("{}", List.of("a"), List.of()),
                desc("{'a.c': 3}", List.of(), List.of())));
        assertThat(out).isEqualTo(BsonDocument.parse("{_id: 1, a: {c: 3}}"));
        assertThat(base).isEqualTo(BsonDocument.parse("{_id: 1, a: {b: 1}}"));
    }

    @Test
    void unsetOfAMissingPathIsANoOpAndOfAnArrayElementLeavesNull() {
        BsonDocument out = apply("{_id: 1, xs: [1, 2]}", desc("{}", List.of("nope.deeper", "xs.0", "xs.9"), List.of()));
        assertThat(out).isEqualTo(BsonDocument.parse("{_id: 1, xs: [null, 2]}"));
    }

    @Test
    void aPathThroughAScalarOrANonArrayTruncationIsNotApplicable() {
        assertThatThrownBy(() -> apply("{_id: 1, a: 5}", desc("{'a.b': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.NotApplicable.class).hasMessageContaining("'a' is a INT32");
        assertThatThrownBy(() -> apply("{_id: 1, a: null}", desc("{'a.b': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.NotApplicable.class).hasMessageContaining("'a' is a NULL");
        assertThatThrownBy(() -> apply("{_id: 1, a: [1]}", desc("{'a.x': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.NotApplicable.class).hasMessageContaining("inside an array");
        assertThatThrownBy(() -> apply("{_id: 1}", desc("{}", List.of(), List.of(new UpdateDescription.Truncation("xs", 1)))))
                .isInstanceOf(UpdateApplier.NotApplicable.class).hasMessageContaining("not an array");
    }

    @Test
    void paddingIsBoundedAsMongoDbBoundsItWithoutBuildingTheRefusedArray() {
        // MongoDB pads up to 1,500,000 nulls (kMaxPaddingAllowed): a.1500000 on an empty array is the most it takes
        BsonDocument out = apply("{_id: 1, a: []}", desc("{'a.1500000': 1}", List.of(), List.of()));
        assertThat(out.getArray("a").size()).isEqualTo(1_500_001);
        assertThatThrownBy(() -> apply("{_id: 1, a: []}", desc("{'a.1500001': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.OutOfBounds.class).hasMessageContaining("with 1500001 nulls");
        long before = usedHeap();
        assertThatThrownBy(() -> apply("{_id: 1, a: [0]}", desc("{'a.999999999': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.OutOfBounds.class).hasMessageContaining("MongoDB pads at most 1500000");
        assertThat(usedHeap() - before).as("bytes allocated for the refused padding").isLessThan(64L << 20);
    }

    @Test
    void paddingIsBoundedOverABatchAsForOneUpdate() {
        PaddingBudget batch = new PaddingBudget();
        UpdateApplier.apply(BsonDocument.parse("{_id: 1, a: []}"), List.of(desc("{'a.1000000': 1}", List.of(), List.of())), batch);
        assertThatThrownBy(() -> UpdateApplier.apply(BsonDocument.parse("{_id: 2, b: []}"),
                List.of(desc("{'b.600000': 1}", List.of(), List.of())), batch))
                .isInstanceOf(UpdateApplier.OutOfBounds.class).hasMessageContaining("after 1000000 already padded in this batch");
        // two paths of one update draw on the same budget
        assertThatThrownBy(() -> apply("{_id: 1, a: [], b: []}", desc("{'a.800000': 1, 'b.800000': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.OutOfBounds.class);
    }

    @Test
    void pathsAndResultsDeeperThanMongoDbsHundredLevelsAreRefused() {
        String hundred = "p" + ".p".repeat(99);
        assertThat(apply("{_id: 1}", desc("{'" + hundred + "': 1}", List.of(), List.of())).getDocument("p")).isNotNull();
        assertThatThrownBy(() -> apply("{_id: 1}", desc("{'" + hundred + ".p': 1}", List.of(), List.of())))
                .isInstanceOf(UpdateApplier.OutOfBounds.class).hasMessageContaining("more than 100 parts");
        // a 60 KB key: refused by counting its dots, before anything is split or built
        String huge = "b" + ".b".repeat(30_000);
        assertThatThrownBy(() -> UpdateApplier.apply(BsonDocument.parse("{_id: 1}"),
                List.of(new UpdateDescription(new BsonDocument(huge, new BsonInt32(1)), List.of(), List.of()))))
                .isInstanceOf(UpdateApplier.OutOfBounds.class).hasMessageContaining("(60001 characters)");
        assertThatThrownBy(() -> apply("{_id: 1}", desc("{}", List.of(hundred + ".p"), List.of())))
                .isInstanceOf(UpdateApplier.OutOfBounds.class);
        assertThatThrownBy(() -> apply("{_id: 1, p: []}", desc("{}", List.of(), List.of(new UpdateDescription.Truncation(hundred + ".p", 0)))))
                .isInstanceOf(UpdateApplier.OutOfBounds.class);
        // a path of 50 levels holding a value 51 levels deep nests the document 101 levels
        String fifty = "q" + ".q".repeat(49);
        BsonValue deep = new BsonInt32(1);
        for (int i = 0; i < 51; i++) {
            deep = new BsonDocument("d", deep);
        }
        BsonValue deepValue = deep;
        assertThatThrownBy(() -> UpdateApplier.apply(BsonDocument.parse("{_id: 1}"),
                List.of(new UpdateDescription(new BsonDocument(fifty, deepValue), List.of(), List.of()))))
                .isInstanceOf(UpdateApplier.OutOfBounds.class).hasMessageContaining("more than 100 levels deep");
        BsonValue fits = deep.asDocument().get("d");
        assertThat(UpdateApplier.apply(BsonDocument.parse("{_id: 1}"),
                List.of(new UpdateDescription(new BsonDocument(fifty, fits), List.of(), List.of())))).isNotNull();
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}
