package dev.tideline.sink.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.sink.decode.UpdateDescription;
import java.util.List;
import org.bson.BsonDocument;
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
}
