package dev.tideline.peer;

import java.util.List;
import java.util.Locale;

/**
 * The health of one direction of a peer link, from its reasons: {@code down} (the destination cannot be
 * reached or refuses our credentials) outranks {@code stalled} (records held: the link is stuck behind
 * them, the visible precursor of divergence), which outranks {@code degraded} (lagging, retrying).
 */
public enum LinkHealth {
    OK, DEGRADED, STALLED, DOWN;

    public enum Reason {
        UNREACHABLE(DOWN), AUTH_FAILED(DOWN), HELD_RECORDS(STALLED), LAG(DEGRADED), RETRYING(DEGRADED);

        private final LinkHealth level;

        Reason(LinkHealth level) {
            this.level = level;
        }

        public String text() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public static LinkHealth rollUp(List<Reason> reasons) {
        LinkHealth h = OK;
        for (Reason r : reasons) {
            if (r.level.ordinal() > h.ordinal()) {
                h = r.level;
            }
        }
        return h;
    }

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
