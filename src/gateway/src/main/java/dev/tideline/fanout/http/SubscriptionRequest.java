package dev.tideline.fanout.http;

import dev.tideline.fanout.auth.AccessPolicy;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.auth.TokenClaims;
import dev.tideline.fanout.auth.TokenRejectedException;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.Positions;
import dev.tideline.fanout.channel.ResumeCursor;
import dev.tideline.fanout.channel.StartPoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A subscription as asked for (query parameters {@code channel}, {@code token}, {@code lastEventId},
 * {@code from}; headers {@code Authorization: Bearer} and {@code Last-Event-ID}) and decided:
 * accepted with its channels and where each starts, or refused with an HTTP status. Isolation is
 * decided here, before anything is subscribed: every channel must be well formed, in the token's
 * tenant and matched by one of its patterns. The cursor only says where to start reading; what is
 * read is routed by the gateway, so a forged cursor cannot reach another tenant's changes.
 */
public final class SubscriptionRequest {
    private SubscriptionRequest() {
    }

    public sealed interface Decision permits Accepted, Refused {
    }

    /**
     * @param starts             where each channel starts, in the order of {@code channels}
     * @param subscribedAtMillis when the client first subscribed (carried by its cursor across resumes)
     */
    public record Accepted(TokenClaims claims, List<ChannelName> channels, List<StartPoint> starts, long subscribedAtMillis)
            implements Decision {
        public Accepted {
            channels = List.copyOf(channels);
            starts = List.copyOf(starts);
        }

        /** Channels that may need a read-back from Kafka (a resume or from=earliest), for the tenant's quota. */
        public int catchUps() {
            return (int) starts.stream().filter(SubscriptionRequest::mayReadKafka).count();
        }
    }

    public record Refused(int status, String reason, String message) implements Decision {
    }

    public static Decision decide(Map<String, List<String>> params, String authorization, String lastEventIdHeader,
                                  JwtVerifier verifier, int maxChannels, long nowMillis) {
        String token = token(params, authorization);
        TokenClaims claims;
        try {
            claims = verifier.verify(token, nowMillis);
        } catch (TokenRejectedException e) {
            return new Refused(401, e.reason(), e.getMessage());
        }
        List<String> names = new ArrayList<>();
        for (String value : params.getOrDefault("channel", List.of())) {
            for (String part : value.split(",", -1)) {
                names.add(part);
            }
        }
        if (names.isEmpty()) {
            return new Refused(400, "no-channel", "name at least one channel: ?channel=<db>.<collection>.<tenant>");
        }
        if (names.size() > maxChannels) {
            return new Refused(400, "too-many-channels", names.size() + " channels asked, at most " + maxChannels);
        }
        List<ChannelName> channels = new ArrayList<>();
        for (String name : names) {
            Optional<ChannelName> parsed = ChannelName.parse(name);
            if (parsed.isEmpty()) {
                return new Refused(400, "bad-channel", "'" + printable(name) + "' is not a channel name <db>.<collection>.<tenant> "
                        + "(letters, digits, '_', '-'; no wildcards: a token's patterns are not subscriptions)");
            }
            if (!AccessPolicy.allows(claims, parsed.get())) {
                return new Refused(403, "forbidden-channel", "the token does not grant channel " + parsed.get());
            }
            if (channels.contains(parsed.get())) {
                return new Refused(400, "duplicate-channel", "channel " + parsed.get() + " is listed twice");
            }
            channels.add(parsed.get());
        }
        List<StartPoint> starts = new ArrayList<>();
        long subscribedAt = nowMillis;
        String lastEventId = Optional.ofNullable(first(params, "lastEventId")).orElse(lastEventIdHeader);
        if (lastEventId != null && !lastEventId.isEmpty()) {
            Optional<ResumeCursor> cursor = ResumeCursor.parse(lastEventId);
            if (cursor.isPresent()) {
                subscribedAt = Math.min(cursor.get().subscribedAtMillis(), nowMillis);
            }
            for (ChannelName c : channels) {
                if (cursor.isEmpty()) {
                    // another version's or a damaged cursor: the client must reload
                    starts.add(StartPoint.BAD_CURSOR);
                } else {
                    Positions p = cursor.get().channels().get(c);
                    // a channel the cursor does not know is a new one in this subscription: live
                    starts.add(p == null ? StartPoint.LIVE : new StartPoint.After(p, subscribedAt));
                }
            }
        } else if ("earliest".equals(first(params, "from"))) {
            subscribedAt = 0;
            channels.forEach(c -> starts.add(StartPoint.EARLIEST));
        } else {
            channels.forEach(c -> starts.add(StartPoint.LIVE));
        }
        return new Accepted(claims, channels, starts, subscribedAt);
    }

    /** The token of a request: {@code ?token=}, else an {@code Authorization: Bearer} header; null when neither. */
    static String token(Map<String, List<String>> params, String authorization) {
        String token = first(params, "token");
        if (token == null && authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            token = authorization.substring(7).trim();
        }
        return token;
    }

    /** Whether a channel starting here may be caught up from Kafka (live and bad cursors never are). */
    static boolean mayReadKafka(StartPoint start) {
        return start instanceof StartPoint.After || start instanceof StartPoint.Earliest;
    }

    static String first(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private static String printable(String s) {
        String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
