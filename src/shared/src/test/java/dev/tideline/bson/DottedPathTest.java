package dev.tideline.bson;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.junit.jupiter.api.Test;

class DottedPathTest {
    private static final BsonDocument DOC = BsonDocument.parse(
            "{a: 1, meta: {updatedAt: 2, none: null, list: [{x: 3}]}, 'meta.updatedAt': 9, '': {'': 4}}");

    @Test
    void descendsEmbeddedDocumentsOnly() {
        assertThat(DottedPath.get(DOC, "a")).isEqualTo(new BsonInt32(1));
        assertThat(DottedPath.get(DOC, "meta.updatedAt")).as("the embedded field, as a query reads it, not the dotted name")
                .isEqualTo(new BsonInt32(2));
        assertThat(DottedPath.get(DOC, "meta.list.x")).as("no element of an array is picked").isNull();
        assertThat(DottedPath.get(DOC, "a.b")).isNull();
        assertThat(DottedPath.get(DOC, "missing.b")).isNull();
    }

    @Test
    void tellsANullFieldFromAMissingOneAndCountsEmptyParts() {
        assertThat(DottedPath.get(DOC, "meta.none")).isEqualTo(BsonNull.VALUE);
        assertThat(DottedPath.get(DOC, "meta.absent")).isNull();
        assertThat(DottedPath.get(DOC, "meta.")).isNull();
        assertThat(DottedPath.get(DOC, ".")).isEqualTo(new BsonInt32(4));
    }
}
