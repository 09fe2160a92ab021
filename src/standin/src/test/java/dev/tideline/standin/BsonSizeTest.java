package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.BsonJavaScript;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Decimal128;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.MaxKey;
import de.bwaldvogel.mongo.bson.MinKey;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.wire.BsonConstants;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The size computed without encoding is the size the stand-in's encoder ({@link LosslessBson}) writes; the quick bound is never below it. */
class BsonSizeTest {

    @Test
    void matchesTheEncoderForEveryType() {
        Document nested = new Document("a", 1).append("é", "ü€𝄞");
        Document doc = new Document("_id", new ObjectId())
                .append("int", 1).append("long", 2L).append("double", 1.5).append("decimal", Decimal128.ONE)
                .append("string", "plain").append("multibyte", "ß€𝄞 and ascii").append("empty", "")
                .append("bool", true).append("null", null).append("date", Instant.now()).append("ts", new BsonTimestamp(42))
                .append("bin", new BinData(new byte[] {1, 2, 3})).append("uuid", UUID.randomUUID())
                .append("regex", new BsonRegularExpression("^a.*", "i")).append("js", new BsonJavaScript("x => x"))
                .append("min", MinKey.getInstance()).append("max", MaxKey.getInstance())
                .append("doc", nested).append("array", List.of(1, "two", nested, List.of(3.0)))
                .append("big", "x".repeat(100_000))
                .append("md5", LosslessValues.binary((byte) 5, new byte[16]))
                .append("undefined", LosslessValues.deprecated(BsonConstants.TYPE_UNDEFINED, new byte[0]))
                .append("symbol", LosslessValues.deprecated(BsonConstants.TYPE_SYMBOL, new byte[] {4, 0, 0, 0, 's', 'y', 'm', 0}));
        assertThat(BsonSize.of(doc)).isEqualTo(encoded(doc));
        assertThat(BsonSize.atMost(doc)).isGreaterThanOrEqualTo(BsonSize.of(doc));
        assertThat(BsonSize.of(new Document())).isEqualTo(encoded(new Document())).isEqualTo(5);
        char[] high = new char[1000];
        Arrays.fill(high, 'ÿ');
        Document wide = new Document("s", new String(high));
        assertThat(BsonSize.of(wide)).isEqualTo(encoded(wide));
        assertThat(BsonSize.atMost(wide)).isGreaterThanOrEqualTo(BsonSize.of(wide));
    }

    private static long encoded(Document doc) {
        ByteBuf buffer = Unpooled.buffer();
        try {
            LosslessBson.encode(doc, buffer);
            return buffer.writerIndex();
        } finally {
            buffer.release();
        }
    }
}
