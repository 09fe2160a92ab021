package dev.tideline.standin;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;

/**
 * Progress lines of the test stack on stdout: PIDs, ports and start-up times belong in the test
 * report (surefire keeps stdout per test class), next to the failure they may explain.
 */
public final class StackLog {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private StackLog() {
    }

    public static void info(String message) {
        System.out.println(LocalTime.now().format(TIME) + " [tideline-stack] " + message);
    }
}
