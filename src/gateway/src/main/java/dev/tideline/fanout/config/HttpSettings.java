package dev.tideline.fanout.config;

import java.util.List;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/** Where the gateway listens, and what it lets connect. */
public final class HttpSettings {
    static final String GROUP = "HTTP";
    public static final String BIND_ADDRESS = "bind.address";
    public static final String HTTP_PORT = "http.port";
    public static final String ALLOWED_ORIGINS = "http.allowed.origins";
    public static final String PUBLIC_ORIGINS = "http.public.origins";
    public static final String REQUEST_TIMEOUT_MS = "http.request.timeout.ms";
    public static final String MAX_CONNECTIONS = "http.max.connections";
    public static final String MAX_CONNECTIONS_PER_ADDRESS = "http.max.connections.per.address";

    private static final ConfigDef.Validator ORIGINS = origins(true);
    private static final ConfigDef.Validator ORIGINS_NO_WILDCARD = origins(false);

    private static ConfigDef.Validator origins(boolean wildcard) {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                @SuppressWarnings("unchecked")
                List<String> origins = (List<String>) value;
                for (String o : origins) {
                    if (!(wildcard && o.equals("*")) && !o.matches("https?://[^/\\s]+")) {
                        throw new ConfigException(name, o, "an origin is scheme://host[:port] with no path, e.g. https://app.example.com"
                                + (wildcard ? ", or *" : ""));
                    }
                }
            }

            @Override
            public String toString() {
                return "origins (scheme://host[:port]) separated by commas" + (wildcard ? ", or *" : "");
            }
        };
    }

    private final String bindAddress;
    private final int port;
    private final List<String> allowedOrigins;
    private final List<String> publicOrigins;
    private final long requestTimeoutMs;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;

    HttpSettings(AbstractConfig c) {
        bindAddress = c.getString(BIND_ADDRESS);
        port = c.getInt(HTTP_PORT);
        allowedOrigins = List.copyOf(c.getList(ALLOWED_ORIGINS));
        publicOrigins = List.copyOf(c.getList(PUBLIC_ORIGINS));
        requestTimeoutMs = c.getLong(REQUEST_TIMEOUT_MS);
        maxConnections = c.getInt(MAX_CONNECTIONS);
        maxConnectionsPerAddress = c.getInt(MAX_CONNECTIONS_PER_ADDRESS);
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(BIND_ADDRESS, Type.STRING, "127.0.0.1", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Address the HTTP server listens on. Loopback by default: put a TLS proxy in front before opening it wider.",
                GROUP, ++o, Width.MEDIUM, "Bind address");
        def.define(HTTP_PORT, Type.INT, 8090, ConfigDef.Range.between(0, 65535), Importance.HIGH,
                "HTTP port for /sse, /ws, the JavaScript client and the demo page; 0 picks a free port (logged at start).",
                GROUP, ++o, Width.SHORT, "HTTP port");
        def.define(ALLOWED_ORIGINS, Type.LIST, "", ORIGINS, Importance.HIGH,
                "Web pages (origins) allowed to open /sse and /ws from a browser, besides the gateway's own (its demo page). "
                        + "A request with any other Origin header is refused (403 origin-not-allowed), so a page elsewhere "
                        + "cannot use a token it obtained; requests without an Origin header (non-browser clients) are not "
                        + "affected. * allows every origin.", GROUP, ++o, Width.LONG, "Allowed origins");
        def.define(PUBLIC_ORIGINS, Type.LIST, "", ORIGINS_NO_WILDCARD, Importance.MEDIUM,
                "The origins at which browsers reach the gateway itself (its demo page), e.g. https://events.example.com when "
                        + "a proxy serves it there: their pages may subscribe without being listed in http.allowed.origins. "
                        + "Empty: http://<bind.address>:<the port it listens on>; set it when browsers use another name (a "
                        + "proxy, a DNS name, bind.address=0.0.0.0). The request's Host header is never trusted for this (any "
                        + "client can write it).", GROUP, ++o, Width.LONG, "Gateway's own origins");
        def.define(REQUEST_TIMEOUT_MS, Type.LONG, 10_000L, ConfigDef.Range.between(100, 600_000), Importance.MEDIUM,
                "Time a connection has to send its whole request (line and headers); a slower one gets 408 and is closed "
                        + "(slow-request attacks hold connections this way).", GROUP, ++o, Width.SHORT, "Request read time-out");
        def.define(MAX_CONNECTIONS, Type.INT, 20_000, ConfigDef.Range.between(1, 1_000_000), Importance.MEDIUM,
                "Open connections the gateway accepts in all; one more is answered 503 and closed. Keep it under the "
                        + "process's file descriptor limit (ulimit -n).", GROUP, ++o, Width.SHORT, "Connection cap");
        def.define(MAX_CONNECTIONS_PER_ADDRESS, Type.INT, 200, ConfigDef.Range.between(1, 1_000_000), Importance.MEDIUM,
                "Open connections one client address may hold; one more is answered 503 and closed. Behind a proxy or a "
                        + "load balancer every client has the proxy's address: raise it to http.max.connections there.",
                GROUP, ++o, Width.SHORT, "Connections per address");
    }

    public String bindAddress() {
        return bindAddress;
    }

    public int port() {
        return port;
    }

    public List<String> allowedOrigins() {
        return allowedOrigins;
    }

    /** The configured own origins; empty means the bind address and port. */
    public List<String> publicOrigins() {
        return publicOrigins;
    }

    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public int maxConnections() {
        return maxConnections;
    }

    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }
}
