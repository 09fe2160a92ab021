package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.health.TaskIdentity;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Which collections a task captures: those whose namespace hashes to its index, out of the task
 * count. Pure and stable: the task configs hold only the index and the count, so they do not change
 * when collections come and go, Connect restarts no task for a new collection, and each task finds
 * its own new collections ({@link TaskCapture}). Connect's distributed mode places the tasks; offsets
 * are per collection, so a change of {@code tasks.max} moves collections with their positions.
 *
 * <p>The hash (CRC-32 of the UTF-8 name) spreads many collections evenly; a handful may land unevenly,
 * and a task may own none (it then only watches for new collections of its share).
 */
public record TaskOwnership(int index, int count) {
    /** Internal key set by the connector in each task config; not a user setting. */
    public static final String COUNT = "tideline.task.count";

    public TaskOwnership {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("task " + index + " of " + count + " is not a task of the connector");
        }
    }

    public boolean owns(Namespace ns) {
        return ownerOf(ns) == index;
    }

    /** The index of the task that captures {@code ns}. */
    public int ownerOf(Namespace ns) {
        CRC32 crc = new CRC32();
        crc.update(ns.fullName().getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % count);
    }

    /** The task config of task {@code index} of {@code count}. */
    static Map<String, String> configure(Map<String, String> taskConfig, int index, int count) {
        TaskIdentity.withIndex(taskConfig, index);
        taskConfig.put(COUNT, Integer.toString(count));
        return taskConfig;
    }

    /** @throws IllegalArgumentException when the config was not written by this connector */
    static TaskOwnership of(Map<String, String> taskConfig) {
        String index = taskConfig.get(TaskIdentity.TASK_INDEX);
        String count = taskConfig.get(COUNT);
        if (index == null || count == null) {
            throw new IllegalArgumentException("task config has no " + TaskIdentity.TASK_INDEX + "/" + COUNT
                    + ": tasks are configured by the connector");
        }
        return new TaskOwnership(Integer.parseInt(index), Integer.parseInt(count));
    }
}
