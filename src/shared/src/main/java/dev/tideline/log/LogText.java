package dev.tideline.log;

/**
 * Makes a value that comes from data (a database or collection name, a document or signal {@code _id}, a
 * Kafka header, a client's channel name) safe to print in a log line: whoever wrote the value cannot start a
 * new line, forge another entry, move the cursor or color a terminal, nor fill the log with one huge value.
 *
 * <ul>
 *   <li>Backslash becomes {@code \\}, so an escape in the output always means an escaped character.</li>
 *   <li>Newline, carriage return and tab become {@code \n}, {@code \r}, {@code \t}; every other control
 *       character (C0, DEL, C1, ESC of the ANSI sequences included), the Unicode line and paragraph
 *       separators and the bidirectional overrides (which reorder what a reader sees) become {@code \}{@code uXXXX}.</li>
 *   <li>A value longer than {@value #MAX_CHARS} characters is cut there, never inside a surrogate pair, and
 *       ends with {@code ...[N more chars]}.</li>
 * </ul>
 * Pure; the gateway and the connectors use the same one.
 */
public final class LogText {
    /** The most characters of one value a log line shows. */
    public static final int MAX_CHARS = 300;
    /** The most characters of a message that may quote values (an exception's, a detail built from names and ids). */
    public static final int MAX_MESSAGE_CHARS = 4_000;

    private LogText() {
    }

    /** The value as it may appear in a log line ({@code "null"} for null). */
    public static String escape(Object value) {
        return escape(value, MAX_CHARS);
    }

    /**
     * A message that may quote values from data (a server's error, a detail naming a collection) as it may appear
     * in a log line: escaped like a value, cut only beyond {@value #MAX_MESSAGE_CHARS} characters.
     */
    public static String message(Object text) {
        return escape(text, MAX_MESSAGE_CHARS);
    }

    /** The value as it may appear in a log line, at most {@code maxChars} characters of it. */
    public static String escape(Object value, int maxChars) {
        String s = String.valueOf(value);
        int end = Math.min(s.length(), maxChars);
        if (end < s.length() && end > 0 && Character.isHighSurrogate(s.charAt(end - 1))) {
            end--; // never half a character
        }
        StringBuilder out = null;
        for (int i = 0; i < end; i++) {
            char ch = s.charAt(i);
            String replacement = replacement(ch);
            if (replacement != null && out == null) {
                out = new StringBuilder(end + 16).append(s, 0, i);
            }
            if (out != null) {
                if (replacement != null) {
                    out.append(replacement);
                } else {
                    out.append(ch);
                }
            }
        }
        if (out == null && end == s.length()) {
            return s; // the usual case: nothing to change
        }
        if (out == null) {
            out = new StringBuilder(end + 24).append(s, 0, end);
        }
        if (end < s.length()) {
            out.append("...[").append(s.length() - end).append(" more chars]");
        }
        return out.toString();
    }

    private static String replacement(char ch) {
        switch (ch) {
            case '\\':
                return "\\\\";
            case '\n':
                return "\\n";
            case '\r':
                return "\\r";
            case '\t':
                return "\\t";
            default:
                break;
        }
        boolean control = ch < 0x20 || (ch >= 0x7F && ch <= 0x9F);
        boolean separator = ch == '\u2028' || ch == '\u2029';
        boolean bidi = (ch >= '\u202A' && ch <= '\u202E') || (ch >= '\u2066' && ch <= '\u2069') || ch == '\u200E' || ch == '\u200F';
        if (control || separator || bidi) {
            return String.format("\\u%04x", (int) ch);
        }
        return null;
    }
}
