package dev.tideline.fanout.nesting;

/**
 * How deeply a record value nests, measured without recursion and before anything decodes it: a
 * value nested thousands of levels deep would overflow the stack of the recursive decoders.
 * MongoDB itself stores at most 100 levels (https://www.mongodb.com/docs/manual/reference/limits/,
 * "Nested Depth for BSON Documents"); a change envelope adds two.
 */
public final class NestingDepth {
    private NestingDepth() {
    }

    /** Whether JSON text nests deeper than {@code limit} objects and arrays. */
    public static boolean jsonExceeds(byte[] utf8, int limit) {
        int depth = 0;
        boolean inString = false;
        boolean escaped = false;
        for (byte b : utf8) {
            if (inString) {
                if (escaped) {
                    escaped = false;
                } else if (b == '\\') {
                    escaped = true;
                } else if (b == '"') {
                    inString = false;
                }
            } else if (b == '"') {
                inString = true;
            } else if (b == '{' || b == '[') {
                if (++depth > limit) {
                    return true;
                }
            } else if (b == '}' || b == ']') {
                depth--;
            }
        }
        return false;
    }

    /**
     * Whether BSON bytes nest deeper than {@code limit} documents and arrays. Malformed bytes are
     * left to the decoder to report (false), except where they would make this walk loop.
     */
    public static boolean bsonExceeds(byte[] bson, int limit) {
        int[] ends = new int[limit + 2];
        int depth = 0;
        int pos = 0;
        if (bson.length < 5) {
            return false;
        }
        ends[0] = readInt(bson, 0);
        if (ends[0] > bson.length || ends[0] < 5) {
            return false;
        }
        pos = 4;
        while (true) {
            if (pos >= bson.length) {
                return false;
            }
            int type = bson[pos++] & 0xff;
            if (type == 0) {
                if (depth == 0) {
                    return false;
                }
                depth--;
                continue;
            }
            while (pos < bson.length && bson[pos] != 0) {
                pos++; // the element's name
            }
            pos++;
            if (pos > bson.length) {
                return false;
            }
            switch (type) {
                case 0x03, 0x04 -> {
                    if (pos + 4 > bson.length) {
                        return false;
                    }
                    if (++depth > limit) {
                        return true;
                    }
                    pos += 4; // into the embedded document's elements
                }
                case 0x0F -> {
                    // code with scope: int32 total, string, then the scope document
                    if (pos + 8 > bson.length) {
                        return false;
                    }
                    int strLen = readInt(bson, pos + 4);
                    if (strLen < 1 || strLen > bson.length - pos - 12) {
                        return false;
                    }
                    pos += 8 + strLen;
                    if (++depth > limit) {
                        return true;
                    }
                    pos += 4;
                }
                default -> {
                    int size = fixedSize(bson, pos, type);
                    if (size < 0 || size > bson.length - pos) {
                        return false;
                    }
                    pos += size;
                }
            }
        }
    }

    /** Bytes of a value that holds no document, or -1 when unknown or truncated. */
    private static int fixedSize(byte[] b, int pos, int type) {
        return switch (type) {
            case 0x01, 0x09, 0x11, 0x12 -> 8;
            case 0x07 -> 12;
            case 0x08 -> 1;
            case 0x10 -> 4;
            case 0x13 -> 16;
            case 0x06, 0x0A, 0xFF, 0x7F -> 0;
            case 0x02, 0x0D, 0x0E -> pos + 4 <= b.length && readInt(b, pos) >= 1 ? 4 + readInt(b, pos) : -1;
            case 0x05 -> pos + 4 <= b.length && readInt(b, pos) >= 0 ? 5 + readInt(b, pos) : -1;
            case 0x0C -> pos + 4 <= b.length && readInt(b, pos) >= 1 ? 4 + readInt(b, pos) + 12 : -1;
            case 0x0B -> {
                int p = pos;
                for (int k = 0; k < 2; k++) {
                    while (p < b.length && b[p] != 0) {
                        p++;
                    }
                    p++;
                }
                yield p > b.length ? -1 : p - pos;
            }
            default -> -1;
        };
    }

    private static int readInt(byte[] b, int pos) {
        return (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8 | (b[pos + 2] & 0xff) << 16 | (b[pos + 3] & 0xff) << 24;
    }
}
