package dev.tideline.bench;

/**
 * One measured quantity of the benchmark.
 *
 * @param label what the table shows
 * @param unit  e.g. "events/s"
 * @param higherIsBetter whether a bigger number is the better one (throughput) or not (latency, CPU, heap)
 */
record Metric(String label, String unit, boolean higherIsBetter) {
}
