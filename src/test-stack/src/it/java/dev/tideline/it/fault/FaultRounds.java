package dev.tideline.it.fault;

import java.util.Random;

/**
 * How hard the fault scenarios push: {@code -Dtideline.faults.rounds} (1 in {@code mvn verify}, more
 * with {@code -Pfaults}), {@code -Dtideline.faults.outage.seconds} for network cuts (10 by default,
 * 10–30 with the profile) and {@code -Dtideline.faults.seed} so a failing random round can be replayed.
 */
final class FaultRounds {
    private FaultRounds() {
    }

    static int rounds() {
        return Integer.getInteger("tideline.faults.rounds", 1);
    }

    static long seed() {
        return Long.getLong("tideline.faults.seed", System.nanoTime());
    }

    /** An outage length in seconds, random between 10 and the configured maximum. */
    static int outageSeconds(Random random) {
        int max = Math.max(10, Integer.getInteger("tideline.faults.outage.seconds", 10));
        return 10 + random.nextInt(max - 10 + 1);
    }

    static void print(Pipeline.Tally tally) {
        System.out.println(tally.line());
    }
}
