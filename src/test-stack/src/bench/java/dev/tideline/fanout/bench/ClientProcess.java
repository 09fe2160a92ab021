package dev.tideline.fanout.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's SSE clients in a JVM of their own ({@link SseLoadClients#main}): the gateway's CPU
 * is then its own, not shared with the clients' selector thread in one process. Asked over its
 * standard input, it answers one line each.
 */
final class ClientProcess implements AutoCloseable {
    /** One reading of the clients: how many subscribed, were closed by the gateway, and changes received while recording. */
    record Status(long subscribed, long closedByServer, long received) {
    }

    /** Latencies of the changes received while recording, in milliseconds. */
    record Latencies(long count, long p50, long p99, long max, long gatewayP99) {
    }

    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;

    private ClientProcess(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.US_ASCII);
    }

    /** Starts the clients (their request paths in {@code work/client-paths.txt}) and waits until they run. */
    static ClientProcess start(Path work, String host, int port, List<String> paths, int maxSamples, String heap) throws IOException {
        Path pathsFile = work.resolve("client-paths.txt");
        Files.write(pathsFile, paths, StandardCharsets.US_ASCII);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-cp", System.getProperty("java.class.path"), SseLoadClients.class.getName(),
                host, Integer.toString(port), pathsFile.toString(), Integer.toString(maxSamples)));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ClientProcess clients = new ClientProcess(p);
        String first = clients.out.readLine();
        if (!"READY".equals(first)) {
            p.destroyForcibly();
            throw new IllegalStateException("the client process did not start: " + first);
        }
        return clients;
    }

    Status status() throws IOException {
        String[] f = ask("status", "STATUS");
        return new Status(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    /** Forgets the samples of the previous step and records from now on. */
    void record() throws IOException {
        ask("record", "OK");
    }

    void stop() throws IOException {
        ask("stop", "OK");
    }

    Latencies latencies() throws IOException {
        String[] f = ask("latencies", "LATENCIES");
        return new Latencies(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]));
    }

    /** The client process's CPU time so far, from /proc (-1 where there is none). */
    long cpuNanos() {
        return ProcessCpu.nanos(process.pid());
    }

    private synchronized String[] ask(String command, String answer) throws IOException {
        in.println(command);
        String line = out.readLine();
        if (line == null || !line.startsWith(answer)) {
            throw new IllegalStateException("the client process answered '" + line + "' to " + command);
        }
        return line.split(" ");
    }

    @Override
    public void close() {
        in.println("quit");
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
