package dev.tideline.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Grafana dashboard's panels drawn as an HTML page (inline SVG) from recorded scrapes: each panel's own queries
 * (monitoring/grafana/tideline-dashboard.json) evaluated by {@link PromQuery} at every scrape. Not Grafana: the same
 * queries and legends on the same data, so the picture in the docs comes from a real run.
 */
public final class PanelPage {
    private static final String[] COLOURS = {"#7eb26d", "#eab839", "#6ed0e0", "#ef843c", "#e24d42", "#1f78c1", "#ba43a9", "#705da0"};
    private static final int W = 560;
    private static final int H = 170;
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    /** One line of a panel: its legend and its points (ms since the first scrape, value). */
    public record Series(String legend, List<double[]> points) {
    }

    private PanelPage() {
    }

    /** Every panel's series, by panel title, in the dashboard's order. */
    public static Map<String, List<Series>> evaluate(List<Scrape> scrapes, long rateWindowMillis) {
        PromQuery promQuery = new PromQuery(rateWindowMillis);
        Map<String, List<Series>> panels = new LinkedHashMap<>();
        for (JsonNode panel : dashboard().path("panels")) {
            List<Series> series = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                PromQuery.Expr expr = promQuery.parse(target.path("expr").asText());
                Map<String, List<double[]>> byLegend = new LinkedHashMap<>();
                for (int i = 0; i < scrapes.size(); i++) {
                    double t = scrapes.get(i).atMillis() - scrapes.get(0).atMillis();
                    for (Map.Entry<Map<String, String>, Double> e : expr.at(scrapes, i).entrySet()) {
                        byLegend.computeIfAbsent(legend(target.path("legendFormat").asText(), e.getKey()), k -> new ArrayList<>())
                                .add(new double[] {t, e.getValue()});
                    }
                }
                byLegend.forEach((legend, points) -> series.add(new Series(legend, points)));
            }
            panels.put(panel.path("title").asText(), series);
        }
        return panels;
    }

    /** The page: every panel on the same time axis (the whole run), as in a Grafana dashboard. */
    public static String html(Map<String, List<Series>> panels, String caption) {
        double runMillis = Math.max(1, panels.values().stream().flatMap(List::stream).flatMap(s -> s.points().stream())
                .mapToDouble(p -> p[0]).max().orElse(1));
        StringBuilder page = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\"><style>"
                + "body{background:#111217;color:#ccccdc;font:12px sans-serif;margin:8px}"
                + ".grid{display:grid;grid-template-columns:repeat(2," + (W + 20) + "px);gap:8px}"
                + ".panel{background:#181b1f;border:1px solid #2c3235;padding:6px 10px}"
                + "h2{font-size:13px;margin:0 0 4px 0;color:#fff}h1{font-size:15px;margin:4px 0 8px 0}"
                + ".legend{display:flex;flex-wrap:wrap;gap:2px 12px;margin-top:2px}.empty{color:#8e8e8e}"
                + "</style></head><body><h1>" + escape(caption) + "</h1><div class=\"grid\">");
        panels.forEach((title, series) -> page.append("<div class=\"panel\"><h2>").append(escape(title)).append("</h2>")
                .append(svg(series, runMillis)).append("</div>"));
        return page.append("</div></body></html>").toString();
    }

    private static String svg(List<Series> series, double maxT) {
        double minV = 0;
        double maxV = 0;
        for (Series s : series) {
            for (double[] p : s.points()) {
                minV = Math.min(minV, p[1]);
                maxV = Math.max(maxV, p[1]);
            }
        }
        if (maxV == minV) {
            maxV = minV + 1;
        }
        StringBuilder svg = new StringBuilder("<svg width=\"" + W + "\" height=\"" + (H + 16) + "\">");
        int left = 48;
        for (int g = 0; g <= 4; g++) {
            double v = minV + (maxV - minV) * g / 4;
            double y = H - (H - 8) * g / 4.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#2c3235\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" fill=\"#8e8e8e\" text-anchor=\"end\">%s</text>", left, y, W, y, left - 4, y + 4, number(v)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#8e8e8e\">0 s</text><text x=\"%d\" y=\"%d\" fill=\"#8e8e8e\" "
                + "text-anchor=\"end\">%.0f s</text>", left, H + 14, W, H + 14, maxT / 1000));
        StringBuilder legend = new StringBuilder("<div class=\"legend\">");
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String colour = COLOURS[i % COLOURS.length];
            StringBuilder points = new StringBuilder();
            for (double[] p : s.points()) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + (W - left) * p[0] / maxT,
                        H - (H - 8) * (p[1] - minV) / (maxV - minV)));
            }
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(colour).append("\" points=\"")
                    .append(points).append("\"/>");
            double last = s.points().get(s.points().size() - 1)[1];
            legend.append("<span><span style=\"color:").append(colour).append("\">&#9644;</span> ").append(escape(s.legend()))
                    .append(": ").append(number(last)).append("</span>");
        }
        if (series.isEmpty()) {
            legend.append("<span class=\"empty\">no data: no series in this run</span>");
        }
        return svg.append("</svg>").append(legend).append("</div>").toString();
    }

    private static String legend(String format, Map<String, String> labels) {
        Matcher m = LEGEND_LABEL.matcher(format);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(labels.getOrDefault(m.group(1), "")));
        }
        m.appendTail(out);
        return out.toString().trim();
    }

    private static String number(double v) {
        double a = Math.abs(v);
        return a >= 1000 ? String.format(Locale.ROOT, "%.0f", v) : a >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static JsonNode dashboard() {
        try {
            return new ObjectMapper().readTree(MetricsCatalog.DASHBOARD.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + MetricsCatalog.DASHBOARD, e);
        }
    }
}
