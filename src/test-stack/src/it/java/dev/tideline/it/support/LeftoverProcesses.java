package dev.tideline.it.support;

import dev.tideline.standin.StackLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Children of a previous run whose JVM was killed with SIGKILL (no shutdown hook ran), e.g. by a
 * CI timeout: they would hold ports and both cores. Each child leaves its PID in {@code <name>.pid};
 * a process is killed only if it still has that PID AND its command line names the same work dir,
 * so a recycled PID or someone else's Kafka is never touched.
 */
final class LeftoverProcesses {
    private LeftoverProcesses() {
    }

    static void recordPid(Path dir, String name, long pid) {
        Path file = dir.resolve(name + ".pid");
        try {
            Files.writeString(file, Long.toString(pid));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static void killLeftovers(Path workDir) {
        if (!Files.isDirectory(workDir)) {
            return;
        }
        List<Path> pidFiles;
        try (Stream<Path> files = Files.walk(workDir, 3)) {
            pidFiles = files.filter(p -> p.getFileName().toString().endsWith(".pid")).collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + workDir, e);
        }
        for (Path pidFile : pidFiles) {
            processOf(pidFile)
                    .filter(p -> p.info().commandLine().map(c -> c.contains(workDir.toString())).orElse(false))
                    .ifPresent(p -> {
                        StackLog.info("killing pid " + p.pid() + " left running by a previous run (" + pidFile + ")");
                        p.destroyForcibly();
                        p.onExit().join();
                    });
        }
    }

    private static Optional<ProcessHandle> processOf(Path pidFile) {
        try {
            return ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim()));
        } catch (IOException | NumberFormatException e) {
            StackLog.info("ignoring unreadable " + pidFile + ": " + e);
            return Optional.empty();
        }
    }
}
