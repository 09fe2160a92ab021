package dev.tideline.source;

import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.CaptureSettings.Mode;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.bson.BsonTimestamp;

/**
 * Decides where a collection's capture starts: a pure function of the stored offset, the mode, the
 * initial-sync setting, whether the server serves change streams and the server's clock.
 */
public final class StartPlanner {
    /**
     * What to open first. {@code offset} is the position to open it at; null for a scan from its initial
     * sync, and for a first copy, which takes its stream start when it begins (a copy may wait its turn).
     */
    public record Plan(Phase phase, SourceOffset offset) {
    }

    public enum Phase { BACKFILL, STREAM, SCAN }

    /**
     * Where initial.sync=skip begins for one collection: its database's start instant, kept in the source
     * (see SkipStarts), and whether the collection was there at that instant.
     */
    public record SkipStart(BsonTimestamp at, boolean wasThere) {
        /** One database's start: the instant, and the collections it had then. */
        public record Anchor(BsonTimestamp at, Set<String> collections) {
            public SkipStart startOf(String collection) {
                return new SkipStart(at, collections.contains(collection));
            }
        }

        /**
         * The start of a database met for the first time.
         *
         * @param others            the connector's starts in its other databases
         * @param connectorHasState whether any collection of the connector has a committed offset
         * @param taskStart         the server's time before this task's first listing
         * @param youngSeconds      how old the earliest other start may be for this database to count as there
         *                          from the start (tasks starting together; a restart before the first commit)
         */
        public static Anchor newAnchor(Collection<Anchor> others, boolean connectorHasState, BsonTimestamp now,
                                       BsonTimestamp taskStart, Collection<String> collectionsNow, int youngSeconds) {
            Optional<BsonTimestamp> earliest = others.stream().map(Anchor::at)
                    .min(Comparator.comparingLong((BsonTimestamp t) -> Integer.toUnsignedLong(t.getTime())).thenComparingInt(BsonTimestamp::getInc));
            if (earliest.isPresent()) {
                if (age(now, earliest.get()) <= youngSeconds) {
                    return new Anchor(earliest.get(), Set.copyOf(collectionsNow)); // the same start as the others
                }
                return new Anchor(now, Set.of()); // a database created since: all of it is change, so it is copied
            }
            if (!connectorHasState && age(now, taskStart) <= youngSeconds) {
                // the connector's first start: from the task's start, before its first listing, so a
                // collection created while the task lists (or into an empty source) is read from its creation
                return new Anchor(taskStart, Set.copyOf(collectionsNow));
            }
            // capturing before any start was kept, or the first collections appeared long after the task
            // started: whatever has no offset is new since, and copied
            return new Anchor(now, Set.of());
        }

        private static long age(BsonTimestamp now, BsonTimestamp then) {
            return Integer.toUnsignedLong(now.getTime()) - Integer.toUnsignedLong(then.getTime());
        }
    }

    private StartPlanner() {
    }

    /**
     * @param stored        the committed offset, or null for a collection never captured
     * @param streams       whether this server serves change streams (decided by opening one)
     * @param skipStart      where skip (and latest, with streams) begins for this collection; asked only
     *                       then (it costs a round trip the first time)
     */
    public static Plan plan(SourceOffset stored, Mode mode, InitialSync initialSync, boolean streams,
                            Supplier<SkipStart> skipStart) {
        boolean useStreams = mode == Mode.CHANGE_STREAM || (mode == Mode.AUTO && streams);
        if (stored != null) {
            switch (stored.phase()) {
                case BACKFILL:
                    if (useStreams) {
                        return new Plan(Phase.BACKFILL, stored);
                    }
                    break;
                case STREAM:
                    if (useStreams) {
                        return new Plan(Phase.STREAM, stored);
                    }
                    break;
                case SCAN:
                    if (!useStreams) {
                        return new Plan(Phase.SCAN, stored);
                    }
                    break;
                default:
                    break;
            }
            // the stored position belongs to the other detection mode: start over as a new collection
        }
        if (!useStreams) {
            return new Plan(Phase.SCAN, null);
        }
        return switch (initialSync.kind()) {
            case FULL -> new Plan(Phase.BACKFILL, null);
            case SKIP, LATEST -> {
                SkipStart start = skipStart.get();
                // a collection created after the start: everything in it is a change since, so it is copied
                yield start.wasThere() ? new Plan(Phase.STREAM, SourceOffset.streamFrom(start.at())) : new Plan(Phase.BACKFILL, null);
            }
            case DATE -> new Plan(Phase.STREAM, SourceOffset.streamFrom(new BsonTimestamp((int) initialSync.at().getEpochSecond(), 0)));
        };
    }
}
