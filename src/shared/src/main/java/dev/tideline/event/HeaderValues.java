package dev.tideline.event;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Header values as a sink task gets them, whichever header converter the worker runs, back to their text. */
public final class HeaderValues {
    private HeaderValues() {
    }

    /**
     * A header value as the text it was written as (JSON text for a scope). Kafka's default header converter
     * (SimpleHeaderConverter) hands a value that looks like a map over as a Map, each quoted string kept as
     * written, escapes included (Kafka 3.6 and 4.x alike): quoting those strings again gives the JSON back.
     */
    public static String text(Object v) {
        if (v instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (v instanceof Map<?, ?> || v instanceof List<?>) {
            StringBuilder out = new StringBuilder();
            rejoin(v, out);
            return out.toString();
        }
        return String.valueOf(v);
    }

    private static void rejoin(Object v, StringBuilder out) {
        if (v instanceof Map<?, ?> map) {
            out.append('{');
            for (Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<?, ?> e = it.next();
                out.append('"').append(e.getKey()).append("\": ");
                rejoin(e.getValue(), out);
                out.append(it.hasNext() ? ", " : "");
            }
            out.append('}');
        } else if (v instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                rejoin(list.get(i), out.append(i == 0 ? "" : ", "));
            }
            out.append(']');
        } else if (v instanceof String s) {
            out.append('"').append(s).append('"');
        } else {
            out.append(v); // numbers (a timestamp's t and i), booleans, null
        }
    }
}
