package dev.tideline.source.capture;

/**
 * Finds where one KeyString value ends, so a token reader can step over the collection UUID and the event identifier
 * to the {@code fragmentNum} after them. Pure.
 *
 * <p>Each value starts with its type byte ({@code CType} in the server's src/mongo/db/storage/key_string/key_string.cpp;
 * V1, ascending). Strings, symbols and code are their bytes with each 00 written as {@code 00 FF}, ended by 00; a
 * document is its fields (a type byte, the name as such a string, the value with its own type byte) ended by 00, e.g.
 * {@code 46 3C"operationType"00 3C"insert"00 ... 00} in the token of the manual's insert
 * (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-change-events); an array its values ended by
 * 00; BinData a length byte (or {@code FF} and 4 bytes), the subtype, the bytes; ObjectId 12 bytes, date and timestamp
 * 8. Integers are a type byte for their width and that many bytes (the low bit flags a fraction). Non-integral
 * numbers (their fraction and Decimal128 continuation bytes), code with scope and values nested deeper than
 * {@link #MAX_DEPTH} are not read: unreadable, the caller says nothing of such a token.
 */
final class KeyStringValue {
    private static final int MAX_DEPTH = 100;

    private KeyStringValue() {
    }

    /** The index after the value whose type byte is at {@code at}, or -1 when it is cut short or not read here. */
    static int end(byte[] key, int at) {
        return end(key, at, 0);
    }

    private static int end(byte[] key, int at, int depth) {
        if (at < 0 || at >= key.length || depth > MAX_DEPTH) {
            return -1;
        }
        int type = key[at] & 0xFF;
        int from = at + 1;
        return switch (type) {
            case 0x0A, 0x0F, TokenBytes.NULL, 0x1E, TokenBytes.ZERO, TokenBytes.FALSE, TokenBytes.TRUE, 0xF0 -> from; // MinKey, undefined, null, NaN, 0, false, true, MaxKey
            case 0x3C, 0xA0 -> stringEnd(key, from); // string or symbol, code
            case TokenBytes.DOCUMENT -> fieldsEnd(key, from, depth);
            case 0x50 -> valuesEnd(key, from, depth);
            case TokenBytes.BIN_DATA -> binDataEnd(key, from);
            case 0x64 -> within(key, from + 12); // ObjectId
            case 0x78, 0x82 -> within(key, from + 8); // date, timestamp
            case 0x8C -> cStringEnd(key, cStringEnd(key, from)); // regex: pattern, flags
            case 0x96 -> dbRefEnd(key, from);
            default -> integerEnd(key, type, from);
        };
    }

    /** An integer: 1 to 8 bytes, positive ({@code 2B} on) or negative ({@code 27} down, its bytes inverted). */
    private static int integerEnd(byte[] key, int type, int from) {
        int width;
        boolean negative;
        if (type >= 0x2B && type <= 0x32) {
            width = type - 0x2A;
            negative = false;
        } else if (type >= 0x20 && type <= 0x27) {
            width = 0x28 - type;
            negative = true;
        } else {
            return -1; // a double's or a decimal's other encodings, code with scope, an unknown type
        }
        int end = within(key, from + width);
        if (end < 0) {
            return -1;
        }
        int last = key[end - 1] & 0xFF;
        boolean fraction = ((negative ? ~last : last) & 1) != 0;
        return fraction ? -1 : end;
    }

    private static int fieldsEnd(byte[] key, int at, int depth) {
        while (at >= 0 && at < key.length && key[at] != 0) {
            at = end(key, stringEnd(key, at + 1), depth + 1); // the field's type byte, its name, its value
        }
        return at < 0 || at >= key.length ? -1 : at + 1;
    }

    private static int valuesEnd(byte[] key, int at, int depth) {
        while (at >= 0 && at < key.length && key[at] != 0) {
            at = end(key, at, depth + 1);
        }
        return at < 0 || at >= key.length ? -1 : at + 1;
    }

    /** After a string's 00, where {@code 00 FF} is a 00 within it. */
    private static int stringEnd(byte[] key, int at) {
        for (int i = at; i >= 0 && i < key.length; i++) {
            if (key[i] == 0) {
                if (i + 1 < key.length && (key[i + 1] & 0xFF) == 0xFF) {
                    i++;
                } else {
                    return i + 1;
                }
            }
        }
        return -1;
    }

    private static int cStringEnd(byte[] key, int at) {
        for (int i = at; i >= 0 && i < key.length; i++) {
            if (key[i] == 0) {
                return i + 1;
            }
        }
        return -1;
    }

    private static int binDataEnd(byte[] key, int at) {
        if (at >= key.length) {
            return -1;
        }
        long length = key[at] & 0xFF;
        int subtype = at + 1;
        if (length == 0xFF) {
            if (at + 5 > key.length) {
                return -1;
            }
            length = ((key[at + 1] & 0xFFL) << 24) | ((key[at + 2] & 0xFF) << 16) | ((key[at + 3] & 0xFF) << 8) | (key[at + 4] & 0xFF);
            subtype = at + 5;
        }
        return length > key.length ? -1 : within(key, subtype + 1 + (int) length);
    }

    private static int dbRefEnd(byte[] key, int at) {
        if (at + 4 > key.length) {
            return -1;
        }
        long nsLength = ((key[at] & 0xFFL) << 24) | ((key[at + 1] & 0xFF) << 16) | ((key[at + 2] & 0xFF) << 8) | (key[at + 3] & 0xFF);
        return nsLength > key.length ? -1 : within(key, at + 4 + (int) nsLength + 12);
    }

    /** {@code end} if the value's bytes up to it are there, else -1. */
    private static int within(byte[] key, int end) {
        return end >= 0 && end <= key.length ? end : -1;
    }
}
