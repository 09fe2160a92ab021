package dev.tideline.health;

import dev.tideline.log.LogText;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reasons currently raised per scope (a collection, or the task), their roll-up, and one log
 * line each time the roll-up changes: worse than ok at WARN, back to ok at INFO.
 */
public final class HealthWatch {
    private static final Logger log = LoggerFactory.getLogger(HealthWatch.class);

    private final String subject;
    private final Map<String, Set<HealthReason>> reasons = new LinkedHashMap<>();
    private Health last = Health.OK;

    /** @param subject what the log lines name, e.g. {@code source task shop-source-0} */
    public HealthWatch(String subject) {
        this.subject = subject;
    }

    public void raise(String scope, HealthReason reason) {
        update(scope, reason, true);
    }

    public void clear(String scope, HealthReason reason) {
        update(scope, reason, false);
    }

    private void update(String scope, HealthReason reason, boolean on) {
        Health before;
        Health after;
        synchronized (this) {
            Set<HealthReason> set = reasons.computeIfAbsent(scope, s -> EnumSet.noneOf(HealthReason.class));
            if (on ? !set.add(reason) : !set.remove(reason)) {
                return;
            }
            before = last;
            after = Health.rollUp(reasons);
            last = after;
        }
        if (!after.equals(before)) {
            if (after.state() == HealthState.OK) {
                log.info("Health of {}: {} (was {})", LogText.escape(subject), LogText.message(after), LogText.message(before));
            } else {
                log.warn("Health of {}: {} (was {})", LogText.escape(subject), LogText.message(after), LogText.message(before));
            }
        }
    }

    public synchronized Health current() {
        return last;
    }

    /** The roll-up of one scope alone. */
    public synchronized Health of(String scope) {
        return Health.rollUp(scope, reasons.getOrDefault(scope, Set.of()));
    }

    /** The roll-up of a few scopes together (a collection and the change stream it is read through). */
    public synchronized Health of(String scope, String... more) {
        java.util.Map<String, Set<HealthReason>> chosen = new LinkedHashMap<>();
        chosen.put(scope, reasons.getOrDefault(scope, Set.of()));
        for (String s : more) {
            chosen.put(s, reasons.getOrDefault(s, Set.of()));
        }
        return Health.rollUp(chosen);
    }
}
