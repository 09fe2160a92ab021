package dev.tideline.source;

import dev.tideline.event.Namespace;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Spreads collections over at most {@code maxTasks} tasks, each collection on exactly one task.
 * Sorted round robin: deterministic, so an unchanged set of collections gives unchanged task configs
 * (Connect then does not restart tasks), and balanced by count.
 */
public final class TaskAssigner {
    private TaskAssigner() {
    }

    public static List<List<Namespace>> assign(List<Namespace> collections, int maxTasks) {
        if (maxTasks < 1) {
            throw new IllegalArgumentException("maxTasks must be at least 1");
        }
        List<Namespace> sorted = new ArrayList<>(collections);
        sorted.sort(Comparator.comparing(Namespace::fullName));
        int tasks = Math.min(maxTasks, sorted.size());
        List<List<Namespace>> groups = new ArrayList<>(tasks);
        for (int i = 0; i < tasks; i++) {
            groups.add(new ArrayList<>());
        }
        for (int i = 0; i < sorted.size(); i++) {
            groups.get(i % tasks).add(sorted.get(i));
        }
        return groups;
    }
}
