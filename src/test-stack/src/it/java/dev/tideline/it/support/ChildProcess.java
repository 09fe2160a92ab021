package dev.tideline.it.support;

import dev.tideline.standin.StackLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM (broker or worker) owned by the test stack. It is only ever stopped through its own
 * {@link Process} handle, never by name, so a developer's other Kafka processes are safe.
 * stdout/stderr go to files (never pipes: an unread pipe blocks the child once its buffer fills).
 */
final class ChildProcess {
    private static final long GRACEFUL_STOP_SECONDS = 10;

    private final String name;
    private final Process process;
    private final Path logFile;
    private final Path consoleFile;

    private ChildProcess(String name, Process process, Path logFile, Path consoleFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
        this.consoleFile = consoleFile;
    }

    /**
     * Starts {@code mainClass} with the Kafka runtime classpath.
     *
     * @param logFile where the child's log4j2 configuration writes (see {@link KafkaRuntime#writeLog4j2Config})
     */
    static ChildProcess startJava(String name, KafkaRuntime runtime, String heap, Path dir, Path logFile,
                                  String mainClass, String... args) {
        return startJava(name, runtime, heap, List.of(), dir, logFile, mainClass, args);
    }

    /** As above, with extra JVM options (placed before the main class). */
    static ChildProcess startJava(String name, KafkaRuntime runtime, String heap, List<String> jvmOptions, Path dir, Path logFile,
                                  String mainClass, String... args) {
        Path log4j2 = runtime.writeLog4j2Config(dir.resolve(name + "-log4j2.properties"), logFile);
        Path console = dir.resolve(name + ".out");
        List<String> command = new ArrayList<>(runtime.javaCommand(heap, log4j2));
        command.addAll(jvmOptions);
        command.add(mainClass);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
        try {
            Process process = builder.start();
            LeftoverProcesses.recordPid(dir, name, process.pid());
            StackLog.info("started " + name + " pid=" + process.pid() + " (log " + logFile + ")");
            return new ChildProcess(name, process, logFile, console);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM, then SIGKILL if the process has not exited after a few seconds. */
    void stop() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!waitForExit(GRACEFUL_STOP_SECONDS)) {
            StackLog.info(name + " pid=" + pid() + " ignored SIGTERM for " + GRACEFUL_STOP_SECONDS + " s, killing it");
            kill();
            return;
        }
        StackLog.info("stopped " + name + " pid=" + pid());
    }

    /** SIGKILL ({@code kill -9}): the process gets no chance to clean up, like a crashed machine. */
    void kill() {
        process.destroyForcibly();
        if (!waitForExit(30)) {
            throw new IllegalStateException(name + " pid=" + pid() + " survived destroyForcibly for 30 s");
        }
        StackLog.info("killed " + name + " pid=" + pid());
    }

    /** Waits for a short-lived child (a tool) to finish; false if it is still running. */
    boolean awaitExit(Duration timeout) {
        return waitForExit(timeout.toSeconds());
    }

    int exitCode() {
        return process.exitValue();
    }

    private boolean waitForExit(long seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name + " to exit", e);
        }
    }

    /** The last lines of the log and of the console output, for start-up failure messages. */
    String diagnostics(int lines) {
        return name + " pid=" + pid() + (process.isAlive() ? " (alive)" : " (exited with " + process.exitValue() + ")")
                + "\n--- tail of " + logFile + " ---\n" + tail(logFile, lines)
                + "\n--- tail of " + consoleFile + " ---\n" + tail(consoleFile, lines);
    }

    static String tail(Path file, int lines) {
        if (!Files.exists(file)) {
            return "(no file)";
        }
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }
}
