package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which filters bound the {@code _id}s they can match, and to which. */
class IdLookupTest {

    private static Document doc(String key, Object value) {
        return new Document(key, value);
    }

    @Test
    void equalitiesBoundTheIds() {
        assertThat(IdLookup.candidates(doc("_id", 1))).containsExactly(1);
        assertThat(IdLookup.candidates(doc("_id", doc("$eq", "a")))).containsExactly("a");
        assertThat(IdLookup.candidates(doc("_id", doc("$in", List.of(1, 2))))).containsExactly(1, 2);
        assertThat(IdLookup.candidates(doc("shard", 3).append("_id", 1))).containsExactly(1);
        assertThat(IdLookup.candidates(doc("$and", List.of(doc("shard", 3), doc("_id", doc("$in", List.of(1, 2))), doc("_id", 2)))))
                .as("the narrowest clause").containsExactly(2);
        assertThat(IdLookup.candidates(doc("_id", doc("k", 1).append("j", 2)))).as("a document is a value")
                .containsExactly(doc("k", 1).append("j", 2));
        assertThat(IdLookup.candidates(doc("_id", doc("$eq", doc("$exists", true))))).as("$eq makes an operator document a value")
                .containsExactly(doc("$exists", true));
    }

    @Test
    void patternsOperatorsArraysNullAndOrAreNoBound() {
        assertThat(IdLookup.candidates(doc("_id", new BsonRegularExpression("^a")))).isNull();
        assertThat(IdLookup.candidates(doc("_id", doc("$regex", "^a")))).isNull();
        assertThat(IdLookup.candidates(doc("_id", doc("$in", List.of(1, new BsonRegularExpression("^a")))))).isNull();
        assertThat(IdLookup.candidates(doc("_id", doc("$gt", 1)))).isNull();
        assertThat(IdLookup.candidates(doc("_id", doc("$exists", true)))).isNull();
        assertThat(IdLookup.candidates(doc("_id", doc("$eq", List.of(1))))).isNull();
        assertThat(IdLookup.candidates(doc("_id", List.of(1)))).isNull();
        assertThat(IdLookup.candidates(doc("_id", null))).isNull();
        assertThat(IdLookup.candidates(doc("_id", doc("$eq", 1).append("x", 2)))).as("operators mixed with fields").isNull();
        assertThat(IdLookup.candidates(doc("$or", List.of(doc("_id", 1), doc("_id", 2))))).isNull();
        assertThat(IdLookup.candidates(doc("shard", 1))).isNull();
        assertThat(IdLookup.candidates(new Document())).isNull();
    }
}
