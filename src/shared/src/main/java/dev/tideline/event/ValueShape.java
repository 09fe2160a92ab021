package dev.tideline.event;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The nesting of a record value, measured WITHOUT decoding it, so that a value too deep to decode safely
 * is refused with its reason instead of overflowing the stack of a recursive decoder (every BSON codec
 * and JSON reader of the driver recurses once per level). Each measure walks iteratively with an
 * explicit stack; none allocates per level of the value. Pure.
 *
 * <p>The limit: MongoDB stores documents nested at most 100 levels deep
 * (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Nested-Depth-for-BSON-Documents),
 * and the deepest place a record carries a document adds 3 levels to it (a change event's
 * {@code updateDescription.updatedFields}), so no writable change is deeper than {@link #MAX_DEPTH}.
 * Depth counts the value itself as 1 and every embedded document or array as one more.
 *
 * <p>Also refused here, because BSON cannot encode them and every later step would fail on them: field
 * names holding a NUL character (possible in JSON text and in maps, never in BSON bytes).
 */
public final class ValueShape {
    /** https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Nested-Depth-for-BSON-Documents */
    public static final int MONGODB_MAX_DOCUMENT_DEPTH = 100;
    /** The deepest record value (or key) whose document MongoDB could still store. */
    public static final int MAX_DEPTH = MONGODB_MAX_DOCUMENT_DEPTH + 4;

    private ValueShape() {
    }

    /** Throws {@link RefusedRecordException} with {@code what} and the reason when the value is too deep or unencodable. */
    static void requireBson(byte[] bytes, String what) {
        bsonProblem(bytes).ifPresent(p -> {
            if (p.startsWith(NOT_BSON)) {
                throw new MalformedRecordException(what + " " + p); // broken, rather than harmful
            }
            throw new RefusedRecordException("refused: the " + what + " " + p);
        });
    }

    /** For JSON text about to be parsed (a record value, or a document carried as Extended JSON in a field). */
    public static void requireJson(String json, String what) {
        jsonTextProblem(json).ifPresent(p -> {
            throw new RefusedRecordException("refused: the " + what + " " + p);
        });
    }

    static void requireJava(Object value, String what) {
        javaProblem(value).ifPresent(p -> {
            throw new RefusedRecordException("refused: the " + what + " " + p);
        });
    }

    private static final String NOT_BSON = "is not a valid BSON document";
    /** Not a problem the decoder names: only the reason {@link #decodes} says no to a view of the bytes. */
    private static final String DUPLICATE_ID = "a second top-level _id";

    private static String tooDeep() {
        return "nests deeper than " + MAX_DEPTH + " levels (MongoDB stores documents at most " + MONGODB_MAX_DOCUMENT_DEPTH
                + " levels deep), measured before decoding";
    }

    /**
     * The depth problem of a BSON document's bytes, or empty. Structure errors (lengths that do not add up,
     * unknown types) are reported too: nothing past them can be read.
     */
    public static Optional<String> bsonProblem(byte[] b) {
        if (b.length < 5) {
            return Optional.empty(); // the decoder says why it is not a document
        }
        int rootEnd = int32(b, 0);
        if (rootEnd < 5 || rootEnd > b.length) {
            return Optional.of(NOT_BSON + ": its length field says " + rootEnd + " bytes, it has " + b.length);
        }
        return Optional.ofNullable(walk(b, 0, rootEnd, false));
    }

    /**
     * Whether the document at {@code b[offset, end)} is one the driver's decoder reads without error: the walk of
     * {@link #bsonProblem} plus the checks its reader makes on values (a string's length positive and its last byte
     * NUL, a boolean 0 or 1, a binary's length not negative and an old binary's two lengths agreeing). It may refuse
     * more than the decoder, never less: a caller that gets false decodes the bytes to learn why. It also says no to a
     * second top-level {@code _id}: decoded, the last one counts, while a view of the bytes reads the first.
     */
    static boolean decodes(byte[] b, int offset, int end) {
        return end - offset >= 5 && offset >= 0 && end <= b.length && int32(b, offset) == end - offset
                && walk(b, offset, end, true) == null;
    }

    /** @return the first problem of the document at {@code b[offset, rootEnd)}, or null */
    private static String walk(byte[] b, int offset, int rootEnd, boolean strict) {
        int[] ends = new int[MAX_DEPTH + 1]; // end (exclusive) of each open document
        int depth = 1;
        ends[0] = rootEnd;
        int pos = offset + 4;
        int topLevelIds = 0;
        while (depth > 0) {
            int end = ends[depth - 1];
            if (pos >= end) {
                return malformed(pos);
            }
            int type = b[pos++] & 0xFF;
            if (type == 0) {
                if (pos != end) {
                    return malformed(pos - 1);
                }
                depth--;
                continue;
            }
            int nameStart = pos;
            while (pos < end && b[pos] != 0) { // the element's name
                pos++;
            }
            if (strict && depth == 1 && isId(b, nameStart, pos) && ++topLevelIds > 1) {
                return DUPLICATE_ID;
            }
            pos++;
            if (strict && !valueDecodes(b, type, pos, end)) {
                return malformed(pos);
            }
            int next;
            switch (type) {
                case 0x01, 0x09, 0x11, 0x12 -> next = pos + 8;
                case 0x02, 0x0D, 0x0E -> next = pos >= end - 4 ? -1 : pos + 4 + int32(b, pos);
                case 0x03, 0x04 -> {
                    int len = pos > end - 5 ? -1 : int32(b, pos);
                    if (len < 5 || pos + len > end) {
                        return malformed(pos);
                    }
                    if (depth == MAX_DEPTH) {
                        return tooDeep();
                    }
                    ends[depth++] = pos + len;
                    pos += 4;
                    continue;
                }
                case 0x05 -> next = pos >= end - 4 ? -1 : pos + 5 + int32(b, pos);
                case 0x06, 0x0A, 0x7F, 0xFF -> next = pos;
                case 0x07 -> next = pos + 12;
                case 0x08 -> next = pos + 1;
                case 0x0B -> {
                    next = pos;
                    for (int cstrings = 0; cstrings < 2 && next >= 0; cstrings++) {
                        while (next < end && b[next] != 0) {
                            next++;
                        }
                        next = next < end ? next + 1 : -1;
                    }
                }
                case 0x0C -> next = pos >= end - 4 ? -1 : pos + 4 + int32(b, pos) + 12;
                case 0x0F -> {
                    // code with scope: total length, the code as a string, then the scope: a document to walk too
                    int total = pos > end - 8 ? -1 : int32(b, pos);
                    int codeLen = total < 14 ? -1 : int32(b, pos + 4);
                    long scope = (long) pos + 8 + codeLen;
                    if (total < 14 || codeLen < 1 || (long) pos + total > end || scope > end - 5
                            || scope + int32(b, (int) scope) != (long) pos + total) {
                        return malformed(pos);
                    }
                    if (depth == MAX_DEPTH) {
                        return tooDeep();
                    }
                    ends[depth++] = pos + total;
                    pos = (int) scope + 4;
                    continue;
                }
                case 0x10 -> next = pos + 4;
                case 0x13 -> next = pos + 16;
                default -> {
                    return NOT_BSON + ": unknown element type 0x" + Integer.toHexString(type) + " at byte " + (pos - 1);
                }
            }
            if (next < pos || next > end) {
                return malformed(pos);
            }
            pos = next;
        }
        return null;
    }

    /** Whether the name at {@code b[start, end)} is {@code _id}. */
    private static boolean isId(byte[] b, int start, int end) {
        return end - start == 3 && b[start] == '_' && b[start + 1] == 'i' && b[start + 2] == 'd';
    }

    /** What the driver's BsonBinaryReader checks in a value at {@code pos} beyond its length (bson 5.x). */
    private static boolean valueDecodes(byte[] b, int type, int pos, int end) {
        return switch (type) {
            case 0x02, 0x0C, 0x0D, 0x0E -> terminatedString(b, pos, end);
            case 0x08 -> pos < end && (b[pos] == 0 || b[pos] == 1);
            case 0x05 -> {
                if (pos > end - 5) {
                    yield false;
                }
                int len = int32(b, pos);
                yield len >= 0 && (b[pos + 4] != 2 || (len >= 4 && pos <= end - 9 && int32(b, pos + 5) == len - 4));
            }
            case 0x0F -> pos <= end - 8 && terminatedString(b, pos + 4, end);
            default -> true;
        };
    }

    /** A string value: a positive length, inside the document, ending with NUL. */
    private static boolean terminatedString(byte[] b, int pos, int end) {
        if (pos > end - 4) {
            return false;
        }
        long len = int32(b, pos);
        return len >= 1 && pos + 4 + len <= end && b[(int) (pos + 3 + len)] == 0;
    }

    private static String malformed(int pos) {
        return NOT_BSON + ": its structure breaks at byte " + pos;
    }

    private static int int32(byte[] b, int pos) {
        return (b[pos] & 0xFF) | (b[pos + 1] & 0xFF) << 8 | (b[pos + 2] & 0xFF) << 16 | (b[pos + 3] & 0xFF) << 24;
    }

    /**
     * The depth problem of JSON text, or empty; also a field name that holds a NUL character
     * ({@code \u0000}). Counts brackets outside string literals; whether the text is valid JSON is
     * the parser's business.
     */
    public static Optional<String> jsonTextProblem(String s) {
        int depth = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"') {
                boolean nul = false;
                int j = i + 1;
                for (; j < n; j++) {
                    char d = s.charAt(j);
                    if (d == '\\') {
                        nul |= s.startsWith("u0000", j + 1);
                        j++;
                    } else if (d == '"') {
                        break;
                    }
                }
                i = j;
                if (nul && nextNonSpace(s, j + 1) == ':') {
                    return Optional.of("has a field name with a NUL character (\\u0000), which BSON cannot encode");
                }
            } else if (c == '{' || c == '[') {
                if (++depth > MAX_DEPTH) {
                    return Optional.of(tooDeep());
                }
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return Optional.empty();
    }

    private static char nextNonSpace(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            if (!Character.isWhitespace(s.charAt(i))) {
                return s.charAt(i);
            }
        }
        return 0;
    }

    /**
     * The depth problem of a value made of maps and lists (a schemaless JsonConverter value), or empty;
     * also a map key that holds a NUL character. Scalars and other objects end a branch.
     */
    public static Optional<String> javaProblem(Object root) {
        if (!(root instanceof Map<?, ?>) && !(root instanceof List<?>)) {
            return Optional.empty();
        }
        Deque<Object> todo = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        todo.push(root);
        depths.push(1);
        while (!todo.isEmpty()) {
            Object v = todo.pop();
            int depth = depths.pop();
            if (depth > MAX_DEPTH) {
                return Optional.of(tooDeep());
            }
            Iterable<?> children;
            if (v instanceof Map<?, ?> map) {
                for (Object key : map.keySet()) {
                    if (key instanceof String k && k.indexOf('\0') >= 0) {
                        return Optional.of("has a field name with a NUL character, which BSON cannot encode");
                    }
                }
                children = map.values();
            } else if (v instanceof List<?> list) {
                children = list;
            } else {
                continue;
            }
            for (Object child : children) {
                if (child instanceof Map<?, ?> || child instanceof List<?>) {
                    todo.push(child);
                    depths.push(depth + 1);
                }
            }
        }
        return Optional.empty();
    }
}
