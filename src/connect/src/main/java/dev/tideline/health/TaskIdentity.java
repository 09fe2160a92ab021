package dev.tideline.health;

import java.util.Map;

/**
 * Which connector and task a task is, for MBean names and health logs. Connect does not tell a task
 * its own number, so each connector writes it into the task's config ({@link #TASK_INDEX}).
 */
public record TaskIdentity(String connector, int task) {
    /** Internal key set by the connectors in each task config; not a user setting. */
    public static final String TASK_INDEX = "tideline.task.index";
    /** Connect's own key for the connector name, present in every connector (and so task) config. */
    private static final String NAME = "name";

    public static Map<String, String> withIndex(Map<String, String> taskConfig, int index) {
        taskConfig.put(TASK_INDEX, Integer.toString(index));
        return taskConfig;
    }

    public static TaskIdentity of(Map<String, String> taskProps) {
        String name = taskProps.getOrDefault(NAME, "unnamed");
        int index;
        try {
            index = Integer.parseInt(taskProps.getOrDefault(TASK_INDEX, "0"));
        } catch (NumberFormatException e) {
            index = 0;
        }
        return new TaskIdentity(name, index);
    }

    @Override
    public String toString() {
        return connector + "-" + task;
    }
}
