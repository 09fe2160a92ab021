package dev.tideline.fanout.http;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which web pages may open a subscription from a browser. Browsers send the page's origin in the
 * {@code Origin} header (always for WebSocket and cross-origin requests): the gateway's own origin
 * (its demo page) and the configured ones pass, any other is refused. A request without one is not
 * a browser page's cross-origin request and passes (tokens still apply).
 */
public final class OriginPolicy {
    private final boolean any;
    private final Set<String> allowed;

    public OriginPolicy(List<String> allowedOrigins) {
        this.any = allowedOrigins.contains("*");
        this.allowed = allowedOrigins.stream().map(OriginPolicy::normalize).collect(Collectors.toUnmodifiableSet());
    }

    /** @param host the request's Host header (the gateway's own origin is http(s)://host) */
    public boolean allows(String origin, String host) {
        if (origin == null || any) {
            return true;
        }
        String o = normalize(origin);
        if (host != null) {
            String h = host.toLowerCase(Locale.ROOT);
            if (o.equals("http://" + h) || o.equals("https://" + h)) {
                return true;
            }
        }
        return allowed.contains(o);
    }

    /** Whether an allowed cross-origin page needs the CORS header to read the response. */
    public boolean isCrossOrigin(String origin, String host) {
        if (origin == null) {
            return false;
        }
        String o = normalize(origin);
        String h = host == null ? "" : host.toLowerCase(Locale.ROOT);
        return !o.equals("http://" + h) && !o.equals("https://" + h);
    }

    private static String normalize(String origin) {
        String o = origin.trim().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }
}
