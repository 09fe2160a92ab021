package dev.tideline.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Samples per metric and contender, reduced to medians and the ratios Tideline/official and
 * Tideline/raw, rendered as a text table, Markdown and TSV. Pure: no I/O.
 *
 * <p>A contender that could not do the work (e.g. the official connector's copy of 200,000 documents)
 * gets a failure note instead of a number, so the table says what happened rather than leaving a gap.
 */
final class ResultTable {
    private final Map<Metric, EnumMap<Contender, List<Double>>> samples = new LinkedHashMap<>();
    private final Map<Metric, EnumMap<Contender, String>> failures = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    /** One line of the table: medians (null where none), their sample counts, failures. */
    record Row(Metric metric, Map<Contender, Double> medians, Map<Contender, Integer> runs, Map<Contender, String> failures) {
        Double median(Contender c) {
            return medians.get(c);
        }

        /** Tideline's median over the other contender's; null when either is missing. */
        Double ratio(Contender other) {
            Double t = medians.get(Contender.TIDELINE);
            Double o = medians.get(other);
            return t == null || o == null || o == 0 ? null : t / o;
        }
    }

    void add(Metric metric, Contender contender, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(metric.label() + " of " + contender + " is not a number: " + value);
        }
        register(metric);
        samples.get(metric).computeIfAbsent(contender, c -> new ArrayList<>()).add(value);
    }

    /** Records that {@code contender} could not do the work of {@code metric}, and why (first reason kept). */
    void fail(Metric metric, Contender contender, String why) {
        register(metric);
        failures.get(metric).putIfAbsent(contender, why);
    }

    /** A free-text line printed under the table (sizes, load, what was reduced). */
    void note(String line) {
        notes.add(line);
    }

    List<String> notes() {
        return List.copyOf(notes);
    }

    private void register(Metric metric) {
        samples.computeIfAbsent(metric, m -> new EnumMap<>(Contender.class));
        failures.computeIfAbsent(metric, m -> new EnumMap<>(Contender.class));
    }

    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Metric metric : samples.keySet()) {
            Map<Contender, Double> medians = new EnumMap<>(Contender.class);
            Map<Contender, Integer> runs = new EnumMap<>(Contender.class);
            samples.get(metric).forEach((c, values) -> {
                medians.put(c, Stats.median(values));
                runs.put(c, values.size());
            });
            rows.add(new Row(metric, medians, runs, new EnumMap<>(failures.get(metric))));
        }
        return rows;
    }

    private static final String[] HEADERS = {"metric", "unit", "raw", "Tideline", "official", "Tideline/official", "Tideline/raw", "runs"};

    private List<String[]> cells() {
        List<String[]> lines = new ArrayList<>();
        for (Row row : rows()) {
            lines.add(new String[] {
                    row.metric().label(),
                    row.metric().unit() + (row.metric().higherIsBetter() ? "" : " (lower is better)"),
                    cell(row, Contender.RAW),
                    cell(row, Contender.TIDELINE),
                    cell(row, Contender.OFFICIAL),
                    ratio(row.ratio(Contender.OFFICIAL)),
                    ratio(row.ratio(Contender.RAW)),
                    runs(row)});
        }
        return lines;
    }

    private static String cell(Row row, Contender c) {
        Double median = row.median(c);
        String failure = row.failures().get(c);
        if (median == null) {
            return failure == null ? "" : "FAILED";
        }
        return number(median) + (failure == null ? "" : " (FAILED once)");
    }

    private static String runs(Row row) {
        StringBuilder s = new StringBuilder();
        row.runs().forEach((c, n) -> s.append(s.length() == 0 ? "" : " ").append(c.label()).append(':').append(n));
        return s.toString();
    }

    /** Three significant figures at most, no exponent: 31500, 1230, 12.3, 0.0421. */
    static String number(double value) {
        double abs = Math.abs(value);
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (abs >= 1) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.3g", value);
    }

    static String ratio(Double value) {
        return value == null ? "" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** The failure notes, one line per failed contender and metric. */
    private List<String> failureLines() {
        List<String> lines = new ArrayList<>();
        for (Row row : rows()) {
            row.failures().forEach((c, why) -> lines.add(c.label() + ", " + row.metric().label() + ": " + why));
        }
        return lines;
    }

    /** Columns padded to their widest cell, for the console. */
    String text() {
        List<String[]> lines = new ArrayList<>();
        lines.add(HEADERS);
        lines.addAll(cells());
        int[] widths = new int[HEADERS.length];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                boolean numeric = i >= 2 && i < line.length - 1;
                String format = "%" + (numeric ? "" : "-") + widths[i] + "s";
                out.append(String.format(Locale.ROOT, format, line[i])).append(i < line.length - 1 ? "  " : "");
            }
            out.append('\n');
        }
        appendTrailer(out, "");
        return out.toString();
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append('|').append(String.join("|", HEADERS)).append("|\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---|\n");
        for (String[] line : cells()) {
            out.append('|').append(String.join("|", line)).append("|\n");
        }
        out.append('\n');
        appendTrailer(out, "- ");
        return out.toString();
    }

    private void appendTrailer(StringBuilder out, String bullet) {
        for (String line : failureLines()) {
            out.append(bullet).append("FAILED: ").append(line).append('\n');
        }
        for (String line : notes) {
            out.append(bullet).append(line).append('\n');
        }
    }

    /** Every cell, tab-separated, with a header line: for scripts and spreadsheets. */
    String tsv() {
        StringBuilder out = new StringBuilder(String.join("\t", HEADERS)).append('\n');
        for (String[] line : cells()) {
            out.append(String.join("\t", line)).append('\n');
        }
        return out.toString();
    }
}
