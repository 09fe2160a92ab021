package dev.tideline.fanout.channel;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A connection's event id, which a client sends back as {@code Last-Event-ID} (or
 * {@code ?lastEventId=}) to resume: {@code 1|<subscribedAt>|<channel>=<positions>|...}, one part per
 * channel (see {@link Positions}). It holds Kafka positions only, nothing of one gateway run, so any
 * gateway reading the same topics resumes it, before or after a restart. {@code subscribedAt} (epoch
 * millis) is when the client first subscribed: a topic the cursor does not name yet is read from
 * that time on.
 */
public record ResumeCursor(long subscribedAtMillis, Map<ChannelName, Positions> channels) {
    static final String VERSION = "1";
    /** Longer ones are refused unread (a cursor is client input). */
    public static final int MAX_LENGTH = 8192;

    public static String format(long subscribedAtMillis, List<ChannelName> names, Positions[] positions) {
        StringBuilder sb = new StringBuilder(32 + 48 * names.size());
        appendTo(sb, subscribedAtMillis, names, positions);
        return sb.toString();
    }

    /** {@link #format} into {@code sb}: a connection reuses one builder for every event it sends. */
    public static void appendTo(StringBuilder sb, long subscribedAtMillis, List<ChannelName> names, Positions[] positions) {
        sb.append(VERSION).append('|').append(subscribedAtMillis);
        for (int i = 0; i < names.size(); i++) {
            ChannelName name = names.get(i);
            // the name's parts, not its toString(): no string built per event
            sb.append('|').append(name.db()).append('.').append(name.collection()).append('.').append(name.tenant()).append('=');
            positions[i].appendTo(sb);
        }
    }

    /** Empty when the text is not a cursor (another version, malformed, too long). */
    public static Optional<ResumeCursor> parse(String text) {
        if (text == null || text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        String[] parts = text.split("\\|", -1);
        if (parts.length < 2 || !VERSION.equals(parts[0]) || parts[1].isEmpty() || parts[1].length() > 15
                || !parts[1].chars().allMatch(Character::isDigit)) {
            return Optional.empty();
        }
        Map<ChannelName, Positions> channels = new LinkedHashMap<>();
        try {
            for (int i = 2; i < parts.length; i++) {
                int eq = parts[i].indexOf('=');
                Optional<ChannelName> name = eq < 0 ? Optional.empty() : ChannelName.parse(parts[i].substring(0, eq));
                if (name.isEmpty() || channels.containsKey(name.get())) {
                    return Optional.empty();
                }
                channels.put(name.get(), Positions.parse(parts[i].substring(eq + 1)));
            }
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.of(new ResumeCursor(Long.parseLong(parts[1]), channels));
    }
}
