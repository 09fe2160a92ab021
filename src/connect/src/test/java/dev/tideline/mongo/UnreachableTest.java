package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ServerAddress;
import java.io.IOException;
import org.apache.kafka.connect.errors.RetriableException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** Health tells "cannot reach the server" (down) from "the server answered with a transient error" (degraded). */
class UnreachableTest {

    @Test
    void socketAndSelectionTimeoutsAreUnreachableAlsoWhenWrapped() {
        var open = new MongoSocketOpenException("Exception opening socket", new ServerAddress("h", 1), new IOException("refused"));
        assertThat(MongoErrors.isUnreachable(open)).isTrue();
        assertThat(MongoErrors.isUnreachable(new MongoTimeoutException("Timed out while waiting for a server"))).isTrue();
        assertThat(MongoErrors.isUnreachable(new RetriableException("transient", open))).isTrue();
        assertThat(MongoErrors.classify(open)).isEqualTo(ErrorClass.RETRIABLE);
    }

    @Test
    void aServerThatAnswersIsReachable() {
        var notPrimary = new MongoCommandException(new BsonDocument("ok", new BsonInt32(0))
                .append("code", new BsonInt32(MongoErrors.NOT_WRITABLE_PRIMARY)).append("errmsg", new BsonString("not primary")),
                new ServerAddress("h", 1));
        assertThat(MongoErrors.classify(notPrimary)).isEqualTo(ErrorClass.RETRIABLE);
        assertThat(MongoErrors.isUnreachable(notPrimary)).isFalse();
        var hostUnreachable = new MongoCommandException(new BsonDocument("ok", new BsonInt32(0))
                .append("code", new BsonInt32(MongoErrors.HOST_UNREACHABLE)).append("errmsg", new BsonString("x")),
                new ServerAddress("h", 1));
        assertThat(MongoErrors.isUnreachable(hostUnreachable)).isTrue();
        assertThat(MongoErrors.isUnreachable(new IllegalStateException("other"))).isFalse();
    }
}
