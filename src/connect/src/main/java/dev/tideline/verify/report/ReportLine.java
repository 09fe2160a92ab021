package dev.tideline.verify.report;

/**
 * One line of the report (one JSON object), with what a consumer routes by.
 *
 * @param type      the line's {@code type}: verify, range, missing, extra, different, in-flight, collection, summary
 * @param namespace the source collection it is about ({@code db.coll}); null for verify and summary lines
 * @param json      the line itself, without the line break
 */
public record ReportLine(String type, String namespace, String json) {
}
