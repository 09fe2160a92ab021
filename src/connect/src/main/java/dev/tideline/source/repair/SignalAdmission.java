package dev.tideline.source.repair;

/**
 * Whether a repair signal a task reads runs, and what is written back in it. Pure.
 *
 * <p>At most one repair runs per collection and at most {@code repair.queue.max} wait behind it: anyone who
 * may insert into {@code <db>._tideline_signals} could otherwise queue whole-collection copies without
 * limit. Who decides what:
 * <ul>
 *   <li>the signal document's state for this connector ({@link SignalStatus}): done or refused never runs again;</li>
 *   <li>the collection's committed offset ({@code RepairProgress}): the repair it says is running resumes
 *       (it is the one running, whatever the queue); one it says is finished is marked done (the task stopped
 *       between that commit and the mark);</li>
 *   <li>this task run: a signal already accepted is not accepted twice, and a full queue refuses.</li>
 * </ul>
 */
public final class SignalAdmission {
    /** What to do with a signal. */
    public enum Decision {
        /** Nothing: it is done, refused, or already accepted in this task run. */
        SKIP,
        /** It finished and its records are committed, but its document does not say so yet: mark it done. */
        MARK_DONE,
        /** Accept it: it runs after those already accepted for its collection. */
        RUN,
        /** Refuse it (and mark it refused): its collection's queue is full. */
        REFUSE
    }

    /**
     * What a task knows about one signal.
     *
     * @param state            its state for this connector, in its document
     * @param runningInOffset  the collection's committed offset says it is the repair running
     * @param doneInOffset     the collection's committed offset says it finished
     * @param accepted         it is already accepted (queued or running) in this task run
     * @param acceptedForCollection how many signals of its collection are accepted and not finished in this task run
     */
    public record Seen(SignalStatus.State state, boolean runningInOffset, boolean doneInOffset, boolean accepted,
                       int acceptedForCollection) {
    }

    private SignalAdmission() {
    }

    /** @param queueMax how many may wait behind the running one, per collection */
    public static Decision decide(Seen s, int queueMax) {
        if (s.state().terminal() || s.accepted()) {
            return Decision.SKIP;
        }
        if (s.runningInOffset()) {
            return Decision.RUN; // the offset knows it was running: it is completed, whatever came in since
        }
        if (s.doneInOffset()) {
            return Decision.MARK_DONE;
        }
        return s.acceptedForCollection() < 1 + queueMax ? Decision.RUN : Decision.REFUSE;
    }
}
