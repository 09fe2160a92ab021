package dev.tideline.health;

/** What every task's MBean says of its health: the state and the reasons its {@link HealthWatch} rolls up. */
abstract class TaskHealthMetrics {
    protected final HealthWatch health;

    TaskHealthMetrics(HealthWatch health) {
        this.health = health;
    }

    public String getHealth() {
        return health.current().stateName();
    }

    public String[] getHealthReasons() {
        return health.current().reasonArray();
    }
}
