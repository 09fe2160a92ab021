package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMinKey;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whether the test server (mongo-java-server) understands every {@code $type} alias IdOrder sends. A
 * failure here is a limitation of the in-process test server, not of IdOrder (MongoDB knows them all).
 */
class IdOrderAliasTest {
    private static InProcessMongo mongo;
    private static MongoCollection<BsonDocument> coll;

    @BeforeAll
    static void start() {
        mongo = new InProcessMongo();
        coll = mongo.db("idorder").getCollection("aliases", BsonDocument.class);
        coll.insertOne(new BsonDocument("_id", new BsonInt32(1)));
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    /** Every alias IdOrder can send: those after MinKey, read off the query it builds. */
    static List<String> allAliases() {
        BsonDocument q = IdOrder.after(new BsonMinKey());
        List<String> aliases = new ArrayList<>();
        for (BsonValue v : q.getArray("$or").get(1).asDocument().getDocument("_id").getArray("$type")) {
            aliases.add(v.asString().getValue());
        }
        return aliases;
    }

    @Test
    void idOrderSendsEveryBracketAfterMinKey() {
        assertThat(allAliases()).containsExactly("undefined", "null", "int", "long", "double", "decimal", "string", "symbol", "object",
                "array", "binData", "objectId", "bool", "date", "timestamp", "regex", "dbPointer", "javascript",
                "javascriptWithScope", "maxKey");
    }

    @Test
    void testServerAcceptsEveryAliasIdOrderSends() {
        Map<String, String> rejected = new LinkedHashMap<>();
        for (String alias : allAliases()) {
            try {
                coll.find(new BsonDocument("_id", new BsonDocument("$type", new BsonString(alias)))).into(new ArrayList<>());
            } catch (MongoException e) {
                rejected.put(alias, e.getMessage());
            }
        }
        assertThat(rejected).as("$type aliases mongo-java-server 1.47.0 rejects").isEmpty();
    }

    @Test
    void testServerAcceptsAnArrayOfAliases() {
        BsonArray known = new BsonArray(List.of(new BsonString("string"), new BsonString("int")));
        assertThat(coll.find(new BsonDocument("_id", new BsonDocument("$type", known))).into(new ArrayList<>())).hasSize(1);
    }
}
