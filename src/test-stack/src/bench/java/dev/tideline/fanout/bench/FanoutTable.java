package dev.tideline.fanout.bench;

import java.util.Locale;

/**
 * The fanout benchmark's printed table: one row per rate, the highest rate that held p99 within
 * {@value FanoutLoadBenchmark#P99_TARGET_MS} ms, and what the measured CPU per delivery projects to.
 */
final class FanoutTable {
    private FanoutTable() {
    }

    static String text(FanoutLoadBenchmark.Result r) {
        FanoutLoadBenchmark.Options o = r.options();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Fanout gateway: %d SSE clients on %d channels (%d each), clients in their own JVM, "
                        + "%d s per rate, %d cores, load average before %s; %d subscribed in %d ms%n", o.clients(), o.channels(),
                o.clientsPerChannel(), o.seconds(), Runtime.getRuntime().availableProcessors(), r.loadBefore(), r.subscribed(),
                r.subscribeMillis()));
        if (!o.gatewaySettings().isEmpty()) {
            sb.append("gateway settings: ").append(o.gatewaySettings()).append('\n');
        }
        sb.append(String.format(Locale.ROOT, "%9s %11s %9s %11s %7s %7s %7s %9s %8s %11s %6s %8s %13s  %s  %s%n", "changes/s",
                "deliveries", "delivered", "delivered/s", "p50 ms", "p99 ms", "max ms", "gw p99 ms", "gw cores", "gw us/deliv",
                "gw sys", "clients", "gw heap MiB", "verdict", "disconnects"));
        for (FanoutLoadBenchmark.Step s : r.steps()) {
            sb.append(String.format(Locale.ROOT, "%9d %11d %8.2f%% %11.0f %7d %7d %7d %9d %8.2f %11.1f %5.0f%% %8.2f %13s  %s  %s%n",
                    s.rate(), s.expected(), 100.0 * s.received() / Math.max(1, s.expected()), s.deliveriesPerSecond(), s.p50(), s.p99(),
                    s.max(), s.gwP99(), s.cpuCores(), s.cpuMicrosPerDelivery(), 100 * s.systemShare(), s.clientCpuCores(),
                    s.heapAvgMiB() + "/" + s.heapMaxMiB(),
                    !s.measured() ? "NOT MEASURED" : s.passes() ? "pass" : "FAIL", s.disconnects()));
        }
        FanoutLoadBenchmark.Step best = r.steps().stream().filter(FanoutLoadBenchmark.Step::passes).reduce((a, b) -> b).orElse(null);
        sb.append(String.format(Locale.ROOT, "highest rate with p99 <= %d ms and every change delivered: %s%n", FanoutLoadBenchmark.P99_TARGET_MS,
                best == null ? "none of the rates tried" : best.rate() + " changes/s = " + Math.round(best.deliveriesPerSecond())
                        + " deliveries/s to " + o.clients() + " clients"));
        FanoutLoadBenchmark.Step last = r.steps().isEmpty() ? null : r.steps().get(r.steps().size() - 1);
        FanoutLoadBenchmark.Step costed = best != null ? best : last;
        if (costed != null && costed.cpuMicrosPerDelivery() > 0) {
            double perCore = 1e6 / costed.cpuMicrosPerDelivery();
            sb.append(String.format(Locale.ROOT, "projection at %.1f us of gateway CPU per delivery (%d changes/s): one gateway core "
                            + "%.0f deliveries/s; N gateways reading the same topics, each with 1/N of the clients: N x that per core "
                            + "(each reads every change once; its clients' deliveries are its own)%n", costed.cpuMicrosPerDelivery(),
                    costed.rate(), perCore));
        }
        if (r.error() != null) {
            sb.append("FAILED: ").append(r.error()).append('\n');
        }
        return sb.toString();
    }
}
