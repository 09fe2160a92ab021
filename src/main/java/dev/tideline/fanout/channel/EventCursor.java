package dev.tideline.fanout.channel;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The SSE event id of a connection: {@code <epoch>:<seq>[,<seq>...]}, one seq per subscribed
 * channel in the order the subscription listed them. A browser sends the last one back as
 * {@code Last-Event-ID} when it reconnects to the same URL, which is all a resume needs.
 */
public record EventCursor(String epoch, List<Long> seqs) {
    public EventCursor {
        seqs = List.copyOf(seqs);
    }

    public static String format(String epoch, long[] seqs) {
        StringBuilder sb = new StringBuilder(epoch.length() + 4 * seqs.length + 2).append(epoch).append(':');
        for (int i = 0; i < seqs.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(seqs[i]);
        }
        return sb.toString();
    }

    /** Empty when the text is not a cursor for {@code channelCount} channels. */
    public static Optional<EventCursor> parse(String text, int channelCount) {
        if (text == null) {
            return Optional.empty();
        }
        int colon = text.indexOf(':');
        if (colon <= 0 || colon > 64) {
            return Optional.empty();
        }
        String[] parts = text.substring(colon + 1).split(",", -1);
        if (parts.length != channelCount) {
            return Optional.empty();
        }
        List<Long> seqs = new ArrayList<>(parts.length);
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 18 || !p.chars().allMatch(Character::isDigit)) {
                return Optional.empty();
            }
            seqs.add(Long.parseLong(p));
        }
        return Optional.of(new EventCursor(text.substring(0, colon), seqs));
    }
}
