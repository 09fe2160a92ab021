package dev.tideline.verify.connect;

import dev.tideline.health.Health;
import dev.tideline.health.HealthState;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.Finding;
import dev.tideline.verify.RunResult;
import java.util.ArrayList;
import java.util.List;

/**
 * The health a verify run leaves, in the roll-up's terms (worst state, reasons named with their scope):
 * equal or only writes in flight is {@code ok}; proven differences are {@code degraded}
 * ({@code shop.orders: differs (2 missing, 0 extra, 1 different)}); a collection that could not be
 * compared is {@code degraded}; a run that could not compare at all (a server out of reach,
 * credentials refused) is {@code down}.
 */
public final class VerifyHealth {
    private VerifyHealth() {
    }

    public static Health of(RunResult run) {
        List<String> reasons = new ArrayList<>();
        HealthState state = HealthState.OK;
        if (run.failure() != null) {
            state = HealthState.DOWN;
            reasons.add("verify: " + run.failure());
        }
        for (CollectionSummary c : run.collections()) {
            String scope = c.collection().source().fullName();
            if (c.error() != null) {
                state = worse(state, HealthState.DEGRADED);
                reasons.add(scope + ": not compared (" + c.error() + ")");
            } else if (c.missing() + c.extra() + c.different() > 0) {
                state = worse(state, HealthState.DEGRADED);
                reasons.add(scope + ": differs (" + c.missing() + " missing, " + c.extra() + " extra, " + c.different() + " different"
                        + (c.fieldOrderOnly() > 0 ? ", " + c.fieldOrderOnly() + " of them in field order only: " + Finding.FIELD_ORDER_ONLY : "")
                        + ")");
            }
        }
        return new Health(state, reasons);
    }

    private static HealthState worse(HealthState a, HealthState b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
