package dev.tideline.sink.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class IdRulesTest {
    @Test
    void idsThatWouldActAsOperatorsOrPatternsAreRefused() {
        assertThat(IdRules.problem(BsonDocument.parse("{$exists: true}"))).get().asString()
                .contains("$-prefixed field '$exists'").contains("operator");
        assertThat(IdRules.problem(BsonDocument.parse("{a: 1, b: {c: [1, {$gt: 2}]}}"))).get().asString()
                .contains("'$gt'").contains("_id.b.c.1.$gt");
        assertThat(IdRules.problem(new BsonRegularExpression(".*"))).get().asString().contains("regular expression");
        assertThat(IdRules.problem(new BsonArray(List.of(new BsonInt32(1))))).get().asString().contains("array");
        assertThat(IdRules.problem(new BsonUndefined())).get().asString().contains("undefined");
        assertThat(IdRules.problem(new BsonDocument("a\0b", new BsonInt32(1)))).get().asString().contains("NUL");
    }

    @Test
    void ordinaryIdsIncludingCompoundOnesAreAccepted() {
        for (BsonValue id : List.of(new BsonInt32(1), new BsonString("$not-a-field-name"), new BsonObjectId(),
                BsonDocument.parse("{region: 'eu', n: {k: [1, 2]}, r: {$regularExpression: {pattern: 'x', options: ''}}}"),
                BsonDocument.parse("{a: 'x$y'}"))) {
            assertThat(IdRules.problem(id)).as(id.toString()).isEmpty();
        }
    }

    @Test
    void exactMatchFiltersUseEqAndRefuseAnyIdThatWouldNotMatchByValueInIn() {
        BsonValue operatorLike = BsonDocument.parse("{$exists: true}");
        assertThat(ExactMatch.eq("_id", operatorLike)).isEqualTo(BsonDocument.parse("{_id: {$eq: {$exists: true}}}"));
        assertThat(ExactMatch.idIn(List.of(new BsonInt32(1), new BsonString("a"))))
                .isEqualTo(BsonDocument.parse("{_id: {$in: [1, 'a']}}"));
        assertThatThrownBy(() -> ExactMatch.idIn(List.of(new BsonInt32(1), new BsonRegularExpression("."))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("regular expression");
        assertThatThrownBy(() -> ExactMatch.idIn(List.of(operatorLike))).isInstanceOf(IllegalArgumentException.class);
    }
}
