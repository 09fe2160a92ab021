package dev.tideline.sandbox;

import dev.tideline.monitoring.Scrape;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * What the status page shows, per captured collection of one source connector: its phase, capture lag, copy or
 * repair progress (from the worker's Prometheus metrics), its document counts at the source and the destination,
 * and the last verify result for it. Pure: the page's I/O is {@link StatusPage}.
 */
final class ReplicationStatus {
    /** One row of the page. */
    record Row(String collection, String phase, double lagSeconds, String progress, long sourceCount, long destinationCount,
               String verify) {
    }

    /** The verify task's view: its last outcome and when that run started (empty before the first), its health reasons. */
    record Verify(String lastOutcome, String lastRunStart, List<String> reasons) {
        static final Verify NONE = new Verify("", "", List.of());
    }

    private ReplicationStatus() {
    }

    static List<Row> rows(Scrape metrics, String sourceConnector, Verify verify, ToLongFunction<String> sourceCount,
                          ToLongFunction<String> destinationCount) {
        Map<String, String> source = Map.of("connector", sourceConnector);
        TreeSet<String> collections = new TreeSet<>();
        metrics.find("tideline_source_collection_phase", source).forEach(s -> collections.add(s.label("collection")));
        List<Row> rows = new ArrayList<>();
        for (String ns : collections) {
            Map<String, String> c = Map.of("connector", sourceConnector, "collection", ns);
            String phase = metrics.find("tideline_source_collection_phase", c).stream().map(s -> s.label("phase")).findFirst().orElse("");
            String coll = ns.substring(ns.indexOf('.') + 1);
            rows.add(new Row(ns, phase, metrics.value("tideline_source_collection_lag_seconds", c), progress(metrics, c),
                    sourceCount.applyAsLong(coll), destinationCount.applyAsLong(coll), verify(verify, ns)));
        }
        return rows;
    }

    /** The copy's documents over its estimate while it runs (or once done), then repairs once there were any. */
    private static String progress(Scrape metrics, Map<String, String> c) {
        double copied = metrics.value("tideline_source_collection_copy_documents", c);
        double estimated = metrics.value("tideline_source_collection_copy_estimated_documents", c);
        double repairs = metrics.value("tideline_source_collection_repairs_total", c);
        String copy = estimated > 0 ? String.format(Locale.ROOT, "copy %.0f%% (%,.0f of %,.0f)", Math.min(100, 100 * copied / estimated),
                copied, estimated) : String.format(Locale.ROOT, "copy %,.0f", copied);
        if (repairs > 0) {
            copy += String.format(Locale.ROOT, "; %.0f repair(s), %,.0f documents copied again", repairs,
                    metrics.value("tideline_source_collection_repair_documents_copied_total", c));
        }
        return copy;
    }

    private static String verify(Verify verify, String ns) {
        for (String reason : verify.reasons()) {
            if (reason.startsWith(ns + ": ")) {
                return reason.substring(ns.length() + 2) + since(verify);
            }
        }
        return verify.lastOutcome().isEmpty() ? "not run yet" : verify.lastOutcome() + since(verify);
    }

    private static String since(Verify verify) {
        return verify.lastRunStart().isEmpty() ? "" : " (run of " + verify.lastRunStart() + ")";
    }

    static String json(List<Row> rows, long atMillis) {
        StringBuilder out = new StringBuilder("{\"at\":").append(atMillis).append(",\"collections\":[");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            out.append(i == 0 ? "" : ",").append("{\"collection\":").append(quote(r.collection())).append(",\"phase\":").append(quote(r.phase()))
                    .append(",\"lagSeconds\":").append(Double.isNaN(r.lagSeconds()) ? "null" : String.format(Locale.ROOT, "%.3f", r.lagSeconds()))
                    .append(",\"progress\":").append(quote(r.progress())).append(",\"sourceCount\":").append(r.sourceCount())
                    .append(",\"destinationCount\":").append(r.destinationCount()).append(",\"verify\":").append(quote(r.verify())).append('}');
        }
        return out.append("]}").toString();
    }

    private static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                q.append('\\').append(ch);
            } else if (ch < 0x20) {
                q.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
            } else {
                q.append(ch);
            }
        }
        return q.append('"').toString();
    }
}
