package dev.tideline.it.fanout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The gateway as users run it: {@code java -cp target/fanout-gateway/lib/* dev.tideline.fanout.GatewayMain
 * <properties>}, in its own JVM, as ./gateway starts it.
 */
public final class GatewayProcess implements AutoCloseable {
    private final Process process;
    private final String baseUrl;

    private GatewayProcess(Process process, String baseUrl) {
        this.process = process;
        this.baseUrl = baseUrl;
    }

    /** Writes {@code settings} to {@code workDir/fanout-gateway.properties} and starts the distribution on them. */
    public static GatewayProcess start(Path workDir, Map<String, String> settings, List<String> jvmOptions) throws IOException {
        Path dist = Path.of(System.getProperty("tideline.fanout.gateway.dir", "target/fanout-gateway")).toAbsolutePath();
        if (!Files.isDirectory(dist.resolve("lib"))) {
            throw new IllegalStateException("no gateway distribution in " + dist + ": run `mvn -DskipTests package` first");
        }
        Files.createDirectories(workDir);
        Path props = workDir.resolve("fanout-gateway.properties");
        StringBuilder sb = new StringBuilder();
        settings.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        Files.writeString(props, sb.toString());
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", dist.resolve("lib") + "/*", "dev.tideline.fanout.GatewayMain", props.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            return new GatewayProcess(p, awaitBaseUrl(p));
        } catch (IOException | RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
    }

    /** Reads the gateway's output until it says where it listens; the rest is drained in the background. */
    private static String awaitBaseUrl(Process gateway) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            if (line.startsWith("fanout gateway: http")) {
                drain(out);
                return line.substring("fanout gateway: ".length()).split("/demo.html")[0];
            }
        }
        throw new IllegalStateException("the gateway exited without serving: " + seen);
    }

    /** Keeps reading a child's output so it never blocks on a full pipe. */
    public static void drain(BufferedReader out) {
        Thread t = new Thread(() -> {
            try {
                out.transferTo(java.io.Writer.nullWriter());
            } catch (IOException ignored) {
                // the process exited
            }
        }, "child-output");
        t.setDaemon(true);
        t.start();
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** The gateway JVM's process id (the benchmark reads its CPU from /proc). */
    public long pid() {
        return process.pid();
    }

    public int port() {
        return Integer.parseInt(baseUrl.substring(baseUrl.lastIndexOf(':') + 1));
    }

    /** kill -9: the gateway gets no chance to say goodbye to its clients, as when its machine dies. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
