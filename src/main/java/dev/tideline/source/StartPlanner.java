package dev.tideline.source;

import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.CaptureSettings.Mode;
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

    private StartPlanner() {
    }

    /**
     * @param stored        the committed offset, or null for a collection never captured
     * @param streams       whether this server serves change streams (decided by opening one)
     * @param streamStartNow the server's current operation time minus a safety margin; asked only when a
     *                       new stream position is needed (it costs a round trip)
     */
    public static Plan plan(SourceOffset stored, Mode mode, InitialSync initialSync, boolean streams,
                            Supplier<BsonTimestamp> streamStartNow) {
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
            case SKIP, LATEST -> new Plan(Phase.STREAM, SourceOffset.streamFrom(streamStartNow.get()));
            case DATE -> new Plan(Phase.STREAM, SourceOffset.streamFrom(new BsonTimestamp((int) initialSync.at().getEpochSecond(), 0)));
        };
    }
}
