package dev.tideline.fanout.http;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Which web pages may open a subscription from a browser. Browsers send the page's origin in the
 * {@code Origin} header (always for WebSocket and cross-origin requests): the gateway's own origins
 * (where its demo page is served) and the configured ones pass, any other is refused. A request
 * without one is not a browser page's cross-origin request and passes (tokens still apply). The
 * gateway's own origins come from its configuration, never from the request: a {@code Host} header
 * is whatever the client writes, so a page of any origin could name itself the gateway through it.
 */
public final class OriginPolicy {
    private final boolean any;
    private final Set<String> allowed;
    private final Supplier<List<String>> own;

    /**
     * @param allowedOrigins other pages allowed to subscribe ({@code *}: any)
     * @param ownOrigins     the origins the gateway itself is reached at (asked when deciding: a port
     *                       chosen by the system is known only once bound)
     */
    public OriginPolicy(List<String> allowedOrigins, Supplier<List<String>> ownOrigins) {
        this.any = allowedOrigins.contains("*");
        this.allowed = allowedOrigins.stream().map(OriginPolicy::normalize).collect(Collectors.toUnmodifiableSet());
        this.own = ownOrigins;
    }

    public boolean allows(String origin) {
        if (origin == null || any) {
            return true;
        }
        String o = normalize(origin);
        return isOwn(o) || allowed.contains(o);
    }

    /** Whether an allowed page of another origin needs the CORS header to read the response. */
    public boolean isCrossOrigin(String origin) {
        return origin != null && !isOwn(normalize(origin));
    }

    private boolean isOwn(String normalizedOrigin) {
        for (String o : own.get()) {
            if (normalize(o).equals(normalizedOrigin)) {
                return true;
            }
        }
        return false;
    }

    private static String normalize(String origin) {
        String o = origin.trim().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }
}
