package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoQueryException;
import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code $type} names every type MongoDB has (https://www.mongodb.com/docs/manual/reference/operator/query/type/),
 * the deprecated ones included: the stand-in answers as MongoDB where the collection holds no value of
 * such a type at that field, and refuses (never answers wrongly) where it does.
 */
class DeprecatedTypeAliasesTest {
    private MongoFixture mongo;
    private MongoCollection<BsonDocument> c;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        c = mongo.client().getDatabase("types").getCollection("docs", BsonDocument.class);
        c.insertMany(List.of(new BsonDocument("_id", new BsonInt32(1)), new BsonDocument("_id", new BsonString("a")),
                new BsonDocument("_id", new BsonInt32(2)).append("s", new BsonSymbol("sym"))));
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private List<BsonValue> ids(String filter) {
        List<BsonValue> out = new ArrayList<>();
        c.find(BsonDocument.parse(filter)).forEach(d -> out.add(d.get("_id")));
        return out;
    }

    @Test
    void deprecatedAliasesAreAcceptedAndMatchNothingWhereNoSuchValueIs() {
        assertThat(ids("{_id: {$type: ['string', 'symbol', 'undefined', 'dbPointer', 'javascript', 'javascriptWithScope']}}"))
                .containsExactly(new BsonString("a"));
        assertThat(ids("{_id: {$type: 'symbol'}}")).isEmpty();
        assertThat(ids("{_id: {$type: 14}}")).isEmpty();
        assertThat(ids("{$or: [{_id: {$gt: 1}}, {_id: {$type: ['string', 'symbol']}}]}"))
                .containsExactlyInAnyOrder(new BsonInt32(2), new BsonString("a"));
    }

    @Test
    void aFieldThatHoldsSuchAValueIsRefusedInsteadOfAnsweredWrongly() {
        assertThatThrownBy(() -> ids("{s: {$type: 'symbol'}}")).isInstanceOf(MongoQueryException.class)
                .hasMessageContaining("stand-in cannot match $type symbol");
        assertThat(c.find(BsonDocument.parse("{_id: 2}")).first().get("s")).isEqualTo(new BsonSymbol("sym"));
    }
}
