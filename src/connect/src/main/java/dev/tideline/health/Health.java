package dev.tideline.health;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A health verdict with its reasons, worst first. {@link #rollUp} is the one rule: the state of the
 * worst reason, {@code ok} when there is none. Pure, so the task, each collection and the logs agree.
 *
 * @param reasons {@code "<scope>: <reason>"} (scope is a collection or the task), worst first
 */
public record Health(HealthState state, List<String> reasons) {
    public static final Health OK = new Health(HealthState.OK, List.of());

    public Health {
        reasons = List.copyOf(reasons);
    }

    /** The verdict for one scope's reasons. */
    public static Health rollUp(String scope, Set<HealthReason> reasons) {
        return rollUp(Map.of(scope, reasons));
    }

    /** The verdict over several scopes (a task's collections): worst state, every reason named with its scope. */
    public static Health rollUp(Map<String, ? extends Collection<HealthReason>> reasonsByScope) {
        record Scoped(String scope, HealthReason reason) {
        }
        List<Scoped> all = new ArrayList<>();
        reasonsByScope.forEach((scope, reasons) -> reasons.forEach(r -> all.add(new Scoped(scope, r))));
        all.sort(Comparator.comparing((Scoped s) -> s.reason().state()).reversed()
                .thenComparing(Scoped::scope).thenComparing(s -> s.reason().label()));
        HealthState worst = all.isEmpty() ? HealthState.OK : all.get(0).reason().state();
        return new Health(worst, all.stream().map(s -> s.scope() + ": " + s.reason().label()).toList());
    }

    /** {@code ok}, {@code degraded}, {@code stalled} or {@code down}: the JMX attribute. */
    public String stateName() {
        return state.wireName();
    }

    /** The reasons as JMX returns them. */
    public String[] reasonArray() {
        return reasons.toArray(String[]::new);
    }

    @Override
    public String toString() {
        return reasons.isEmpty() ? state.wireName() : state.wireName() + " (" + String.join(", ", reasons) + ")";
    }
}
