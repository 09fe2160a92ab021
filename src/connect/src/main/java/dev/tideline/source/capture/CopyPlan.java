package dev.tideline.source.capture;

import dev.tideline.mongo.BsonOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * A copy of one collection split into {@code _id} ranges (chunks) that several tasks copy at once. Pure:
 * which chunks exist, their ranges, and which task copies each.
 *
 * <p>Chunk {@code i} holds the ids in {@code [bounds[i-1], bounds[i])}, the first from the start, the
 * last to the end, so together they hold every id once whatever its type ({@link IdOrder} ranges
 * follow MongoDB's order across types). Chunk 0 is copied by the collection's owner; chunk {@code i} by
 * the task {@code i} places after it, so with as many chunks as tasks each task copies one.
 *
 * @param streamStart the copy's stream start: every chunk reads after it and its copies carry it as their
 *                    cluster time, like a copy by one task
 * @param bounds      the ids between the chunks, in increasing order; empty for one chunk
 */
public record CopyPlan(BsonTimestamp streamStart, List<BsonValue> bounds) {
    public CopyPlan {
        Objects.requireNonNull(streamStart, "streamStart");
        bounds = List.copyOf(bounds);
        for (int i = 1; i < bounds.size(); i++) {
            if (BsonOrder.COMPARATOR.compare(bounds.get(i - 1), bounds.get(i)) >= 0) {
                throw new IllegalArgumentException("chunk bounds must increase, got " + bounds);
            }
        }
    }

    /** One chunk's ids: from {@code from} (inclusive; null from the start) to {@code to} (exclusive; null to the end). */
    public record Chunk(int index, BsonValue from, BsonValue to) {
    }

    /**
     * How many chunks a copy gets: one per task when the collection is large enough to be worth it, else
     * one (copied by its owner alone, as an unsplit copy).
     *
     * @param minDocuments the estimated size from which a copy is split; 0 never splits
     */
    public static int chunkCount(long estimatedDocuments, int tasks, long minDocuments) {
        if (tasks < 2 || minDocuments <= 0 || estimatedDocuments < minDocuments) {
            return 1;
        }
        return tasks;
    }

    /**
     * Where chunk bounds fall: at documents {@code n/k, 2n/k ...} of an estimated {@code n} in {@code _id}
     * order, the positions to skip to for {@code k} chunks of about the same size.
     */
    public static List<Long> boundPositions(long estimatedDocuments, int chunks) {
        List<Long> at = new ArrayList<>();
        for (int i = 1; i < chunks; i++) {
            at.add(estimatedDocuments * i / chunks);
        }
        return at;
    }

    public int chunks() {
        return bounds.size() + 1;
    }

    public Chunk chunk(int index) {
        if (index < 0 || index >= chunks()) {
            throw new IllegalArgumentException("chunk " + index + " of " + chunks());
        }
        return new Chunk(index, index == 0 ? null : bounds.get(index - 1), index == bounds.size() ? null : bounds.get(index));
    }

    /** The task that copies chunk {@code index}: the owner's for chunk 0, then the following tasks in turn. */
    public static int taskOf(int index, int ownerTask, int tasks) {
        return (ownerTask + index) % tasks;
    }

    /** The chunks task {@code task} copies. */
    public List<Chunk> chunksOf(int task, int ownerTask, int tasks) {
        List<Chunk> mine = new ArrayList<>();
        for (int i = 0; i < chunks(); i++) {
            if (taskOf(i, ownerTask, tasks) == task) {
                mine.add(chunk(i));
            }
        }
        return mine;
    }
}
