package dev.tideline.event;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Deeply nested values in every record form, built without recursion (the driver's encoders recurse
 * once per level, so a 10,000-deep value cannot be built through them).
 */
public final class DeepValues {
    private DeepValues() {
    }

    /** {@code {a: {a: ... {}}}}: a document {@code levels} deep (the outer document is level 1). */
    public static byte[] bson(int levels) {
        int wraps = levels - 1;
        ByteArrayOutputStream out = new ByteArrayOutputStream(8 * wraps + 5);
        for (int i = 0; i < wraps; i++) {
            int32(out, 5 + 8 * (wraps - i));
            out.write(0x03);
            out.write('a');
            out.write(0);
        }
        int32(out, 5);
        out.write(0);
        for (int i = 0; i < wraps; i++) {
            out.write(0);
        }
        return out.toByteArray();
    }

    /**
     * A Tideline insert envelope (BSON) of {@code shop.orders} whose document {@code {_id: id, a: {a: ...}}}
     * is {@code levels} deep (the record value one more).
     */
    public static byte[] bsonEnvelope(int id, int levels) {
        byte[] deep = bson(levels - 1);
        ByteArrayOutputStream doc = new ByteArrayOutputStream();
        element(doc, 0x10, "_id");
        int32(doc, id);
        element(doc, 0x03, "a");
        doc.writeBytes(deep);
        byte[] document = close(doc);
        ByteArrayOutputStream env = new ByteArrayOutputStream();
        element(env, 0x10, "v");
        int32(env, 1);
        string(env, "op", "insert");
        string(env, "db", "shop");
        string(env, "coll", "orders");
        element(env, 0x10, "id");
        int32(env, id);
        element(env, 0x03, "document");
        env.writeBytes(document);
        return close(env);
    }

    /** JSON text {@code {"a": {"a": ... 1}}} with {@code levels} levels. */
    public static String json(int levels) {
        StringBuilder s = new StringBuilder(levels * 7);
        s.append("{\"a\": ".repeat(levels)).append('1').append("}".repeat(levels));
        return s.toString();
    }

    /** The same envelope as {@link #bsonEnvelope}, as canonical JSON text (StringConverter). */
    public static String jsonEnvelope(int id, int levels) {
        return "{\"v\": 1, \"op\": \"insert\", \"db\": \"shop\", \"coll\": \"orders\", \"id\": " + id
                + ", \"document\": {\"_id\": " + id + ", \"a\": " + json(levels - 1) + "}}";
    }

    /** A schemaless map (JsonConverter) {@code levels} deep. */
    public static Map<String, Object> map(int levels) {
        Map<String, Object> inner = new LinkedHashMap<>();
        for (int i = 1; i < levels; i++) {
            Map<String, Object> outer = new LinkedHashMap<>();
            outer.put("a", inner);
            inner = outer;
        }
        return inner;
    }

    /** The envelope as a schemaless map whose document nests {@code levels} deep. */
    public static Map<String, Object> mapEnvelope(int id, int levels) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("_id", id);
        doc.put("a", map(levels - 1));
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("v", 1);
        env.put("op", "insert");
        env.put("db", "shop");
        env.put("coll", "orders");
        env.put("id", id);
        env.put("document", doc);
        return env;
    }

    private static void element(ByteArrayOutputStream out, int type, String name) {
        out.write(type);
        out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    private static void string(ByteArrayOutputStream out, String name, String value) {
        element(out, 0x02, name);
        byte[] b = value.getBytes(StandardCharsets.UTF_8);
        int32(out, b.length + 1);
        out.writeBytes(b);
        out.write(0);
    }

    private static byte[] close(ByteArrayOutputStream elements) {
        byte[] body = elements.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 5);
        int32(out, body.length + 5);
        out.writeBytes(body);
        out.write(0);
        return out.toByteArray();
    }

    private static void int32(ByteArrayOutputStream out, int v) {
        out.write(v);
        out.write(v >>> 8);
        out.write(v >>> 16);
        out.write(v >>> 24);
    }
}
