package dev.tideline.verify.bench;

import dev.tideline.verify.cli.VerifyMain;
import java.util.Map;

/** {@code ./verify} in a benchmark child JVM, followed by what the JVM used. */
public final class VerifyChild {
    private VerifyChild() {
    }

    public static void main(String[] args) {
        ChildStats.watch();
        long start = System.nanoTime();
        int code = VerifyMain.run(args, Map.of(), System.out, System.err);
        System.out.printf("VERIFY exit=%d millis=%d%n", code, (System.nanoTime() - start) / 1_000_000);
        System.out.println(ChildStats.line());
        System.exit(0);
    }
}
