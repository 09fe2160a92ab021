package dev.tideline.sandbox;

import com.mongodb.client.MongoDatabase;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.monitoring.Scrape;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * The sandbox's status page: per collection of the source connector, live (the page asks every second), its phase,
 * capture lag, copy or repair progress, the document counts at the source and the destination and the last verify
 * result. Figures come from where an operator gets them: the worker's Prometheus /metrics (our exporter rules), the
 * verify task's MBean and the two databases. Served on 127.0.0.1 only.
 */
public final class StatusPage implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final HttpServer server;
    private final String metricsUrl;
    private final String jmxUrl;
    private final String sourceConnector;
    private final String verifyMBean;
    private final MongoDatabase source;
    private final MongoDatabase destination;

    private StatusPage(HttpServer server, String metricsUrl, String jmxUrl, String sourceConnector, String verifyConnector,
                       MongoDatabase source, MongoDatabase destination) {
        this.server = server;
        this.metricsUrl = metricsUrl;
        this.jmxUrl = jmxUrl;
        this.sourceConnector = sourceConnector;
        this.verifyMBean = "dev.tideline:type=verify-task,connector=" + verifyConnector + ",task=0";
        this.source = source;
        this.destination = destination;
    }

    public static StatusPage start(String metricsUrl, String jmxUrl, String sourceConnector, String verifyConnector,
                            MongoDatabase source, MongoDatabase destination) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        StatusPage page = new StatusPage(server, metricsUrl, jmxUrl, sourceConnector, verifyConnector, source, destination);
        server.createContext("/status.json", page::status);
        server.createContext("/", exchange -> send(exchange, 200, "text/html; charset=utf-8", PAGE));
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "status-page");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return page;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    private void status(HttpExchange exchange) throws IOException {
        try {
            long now = System.currentTimeMillis();
            HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(URI.create(metricsUrl)).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (metrics.statusCode() != 200) {
                throw new IOException("GET " + metricsUrl + " answered " + metrics.statusCode());
            }
            List<ReplicationStatus.Row> rows = ReplicationStatus.rows(Scrape.parse(now, metrics.body()), sourceConnector, verify(),
                    c -> source.getCollection(c).countDocuments(), c -> destination.getCollection(c).countDocuments());
            send(exchange, 200, "application/json", ReplicationStatus.json(rows, now));
        } catch (IOException | RuntimeException e) {
            send(exchange, 503, "text/plain; charset=utf-8", "status unavailable: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            send(exchange, 503, "text/plain; charset=utf-8", "interrupted");
        }
    }

    /** The verify task's last result; none while it has not registered (starting) or is not configured. */
    private ReplicationStatus.Verify verify() {
        try (JmxReader jmx = new JmxReader(jmxUrl)) {
            if (jmx.names(verifyMBean).isEmpty()) {
                return ReplicationStatus.Verify.NONE;
            }
            return new ReplicationStatus.Verify((String) jmx.attribute(verifyMBean, "LastOutcome"),
                    (String) jmx.attribute(verifyMBean, "LastRunStart"),
                    Arrays.asList((String[]) jmx.attribute(verifyMBean, "HealthReasons")));
        }
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** The page: a table filled from /status.json every second; nothing is inserted as HTML from the data. */
    private static final String PAGE = """
            <!doctype html><html><head><meta charset="utf-8"><title>Tideline replication status</title><style>
            body{font:14px sans-serif;margin:16px;background:#fafafa;color:#222}h1{font-size:18px;margin:0 0 4px}
            table{border-collapse:collapse;margin-top:10px;background:#fff}th,td{border:1px solid #ccc;padding:6px 10px;text-align:left}
            th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}.equal{color:#176f2c}.bad{color:#b3261e;font-weight:bold}
            #state{color:#555}
            </style></head><body><h1>Tideline replication status</h1><div id="state">connecting...</div>
            <table><thead><tr><th>collection</th><th>phase</th><th>capture lag</th><th>copy / repair</th>
            <th>documents at the source</th><th>documents at the destination</th><th>last verify</th></tr></thead>
            <tbody id="rows"></tbody></table>
            <script>
            function cell(row, text, cls) { const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; }
            async function refresh() {
              try {
                const r = await fetch('status.json', {cache: 'no-store'});
                if (!r.ok) throw new Error(await r.text());
                const s = await r.json();
                const body = document.getElementById('rows');
                body.replaceChildren();
                for (const c of s.collections) {
                  const row = body.insertRow(); row.className = 'collection';
                  cell(row, c.collection); cell(row, c.phase);
                  cell(row, c.lagSeconds === null || c.lagSeconds < 0 ? '-' : c.lagSeconds.toFixed(1) + ' s', 'num');
                  cell(row, c.progress);
                  cell(row, c.sourceCount.toLocaleString('en'), 'num');
                  cell(row, c.destinationCount.toLocaleString('en'), c.destinationCount === c.sourceCount ? 'num' : 'num bad');
                  cell(row, c.verify, c.verify.startsWith('equal') ? 'equal' : c.verify.startsWith('not run') ? '' : 'bad');
                }
                document.getElementById('state').textContent = 'live, updated ' + new Date(s.at).toISOString().substring(11, 19) + ' UTC';
              } catch (e) {
                document.getElementById('state').textContent = 'not updating: ' + e.message;
              }
            }
            refresh(); setInterval(refresh, 1000);
            </script></body></html>
            """;
}
