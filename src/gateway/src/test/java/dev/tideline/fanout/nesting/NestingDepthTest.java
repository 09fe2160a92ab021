package dev.tideline.fanout.nesting;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class NestingDepthTest {
    private static String nestedJson(int depth) {
        return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }

    /** {a:{a:{...}}} built without recursion, encoded without recursion into bytes. */
    private static byte[] nestedBson(int depth) {
        // innermost first: each level is int32 size, 0x03 'a' 0x00 <child>, 0x00
        byte[] child = new byte[] {5, 0, 0, 0, 0};
        for (int i = 0; i < depth; i++) {
            int size = 4 + 1 + 2 + child.length + 1;
            byte[] level = new byte[size];
            level[0] = (byte) size;
            level[1] = (byte) (size >> 8);
            level[2] = (byte) (size >> 16);
            level[3] = (byte) (size >> 24);
            level[4] = 0x03;
            level[5] = 'a';
            level[6] = 0;
            System.arraycopy(child, 0, level, 7, child.length);
            level[size - 1] = 0;
            child = level;
        }
        return child;
    }

    @Test
    void measuresJsonOutsideStrings() {
        assertThat(NestingDepth.jsonExceeds(nestedJson(10_000).getBytes(StandardCharsets.UTF_8), 110)).isTrue();
        assertThat(NestingDepth.jsonExceeds(nestedJson(110).getBytes(StandardCharsets.UTF_8), 110)).isFalse();
        assertThat(NestingDepth.jsonExceeds(nestedJson(111).getBytes(StandardCharsets.UTF_8), 110)).isTrue();
        String bracesInStrings = "{\"s\":\"" + "{[".repeat(500) + "\\\"{\"}";
        assertThat(NestingDepth.jsonExceeds(bracesInStrings.getBytes(StandardCharsets.UTF_8), 3)).isFalse();
    }

    @Test
    void measuresBsonDocumentsArraysAndScopes() {
        assertThat(NestingDepth.bsonExceeds(nestedBson(10_000), 110)).isTrue();
        assertThat(NestingDepth.bsonExceeds(nestedBson(109), 110)).isFalse();
        assertThat(NestingDepth.bsonExceeds(nestedBson(111), 110)).isTrue();
        BsonDocument flat = new BsonDocument("s", new BsonString("x")).append("n", new BsonInt32(1))
                .append("b", new BsonBinary(new byte[] {1, 2, 3})).append("r", new BsonRegularExpression("a.*", "i"))
                .append("arr", new BsonArray(java.util.List.of(new BsonDocument("x", new BsonArray()))))
                .append("js", new BsonJavaScriptWithScope("f()", new BsonDocument("k", new BsonDocument())));
        byte[] bytes = EnvelopeCodec.toBytes(flat);
        assertThat(NestingDepth.bsonExceeds(bytes, 3)).isFalse();
        assertThat(NestingDepth.bsonExceeds(bytes, 2)).isTrue();
    }

    @Test
    void malformedBytesAreLeftToTheDecoder() {
        assertThat(NestingDepth.bsonExceeds(new byte[] {1, 2, 3}, 5)).isFalse();
        assertThat(NestingDepth.bsonExceeds(new byte[] {20, 0, 0, 0, 2, 'a', 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 0}, 5)).isFalse();
        byte[] truncated = nestedBson(50);
        assertThat(NestingDepth.bsonExceeds(java.util.Arrays.copyOf(truncated, 30), 100)).isFalse();
    }
}
