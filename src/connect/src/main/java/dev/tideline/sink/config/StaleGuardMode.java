package dev.tideline.sink.config;

/** Whether the stale-write guard runs (see {@code dev.tideline.sink.guard.StaleWriteGuard}). */
public enum StaleGuardMode {
    /** on for every record that carries a cluster time or the configured version field (default) */
    AUTO,
    /** every change is applied in arrival order; no version bookkeeping */
    OFF;
}
