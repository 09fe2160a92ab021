package dev.tideline.source.repair;

import static dev.tideline.source.repair.SignalAdmission.Decision.MARK_DONE;
import static dev.tideline.source.repair.SignalAdmission.Decision.REFUSE;
import static dev.tideline.source.repair.SignalAdmission.Decision.RUN;
import static dev.tideline.source.repair.SignalAdmission.Decision.SKIP;
import static dev.tideline.source.repair.SignalStatus.State.DONE;
import static dev.tideline.source.repair.SignalStatus.State.NEW;
import static dev.tideline.source.repair.SignalStatus.State.QUEUED;
import static dev.tideline.source.repair.SignalStatus.State.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.repair.SignalAdmission.Decision;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which signals run: one running and a bounded queue per collection, nothing done or refused ever again. */
class SignalAdmissionTest {
    private static final int QUEUE_MAX = 2;

    private static Decision decide(SignalStatus.State state, boolean running, boolean done, boolean accepted, int ofCollection) {
        return SignalAdmission.decide(new SignalAdmission.Seen(state, running, done, accepted, ofCollection), QUEUE_MAX);
    }

    @Test
    void aNewSignalRunsWhileItsCollectionHasRoomAndIsRefusedOnceItIsFull() {
        assertThat(decide(NEW, false, false, false, 0)).isEqualTo(RUN);
        assertThat(decide(NEW, false, false, false, 2)).as("one running, one queued: one more may wait").isEqualTo(RUN);
        assertThat(decide(NEW, false, false, false, 3)).as("one running and queue.max waiting").isEqualTo(REFUSE);
        assertThat(SignalAdmission.decide(new SignalAdmission.Seen(NEW, false, false, false, 1), 0))
                .as("repair.queue.max=0: only the running one").isEqualTo(REFUSE);
    }

    @Test
    void doneAndRefusedNeverRunAgainWhateverTheOffsetSays() {
        for (SignalStatus.State terminal : List.of(DONE, REFUSED)) {
            assertThat(decide(terminal, false, false, false, 0)).isEqualTo(SKIP);
            assertThat(decide(terminal, true, false, false, 0)).as("an offset older than the mark (reset)").isEqualTo(SKIP);
            assertThat(decide(terminal, false, true, false, 0)).isEqualTo(SKIP);
        }
    }

    @Test
    void theRepairTheOffsetSaysIsRunningResumesEvenWithAFullQueue() {
        assertThat(decide(QUEUED, true, false, false, 3)).isEqualTo(RUN);
        assertThat(decide(NEW, true, false, false, 0)).as("running before signals carried states").isEqualTo(RUN);
    }

    @Test
    void aRepairFinishedInTheCommittedOffsetButNotMarkedIsMarkedDoneNotRun() {
        assertThat(decide(QUEUED, false, true, false, 0)).isEqualTo(MARK_DONE);
        assertThat(decide(NEW, false, true, false, 3)).isEqualTo(MARK_DONE);
    }

    @Test
    void aSignalAcceptedInThisRunIsNotAcceptedTwice() {
        assertThat(decide(QUEUED, false, false, true, 1)).isEqualTo(SKIP);
        assertThat(decide(QUEUED, true, false, true, 1)).isEqualTo(SKIP);
        assertThat(decide(QUEUED, false, true, true, 1)).as("finished, its done mark waiting for the commit").isEqualTo(SKIP);
    }

    @Test
    void aFloodOfSignalsAcrossRestartsRunsAtMostTheBoundOnce() {
        // 1,000 signals for one collection, read at three starts; a start accepts in order: running, queued, new
        int signals = 1_000;
        SignalStatus.State[] states = new SignalStatus.State[signals];
        java.util.Arrays.fill(states, NEW);
        List<Integer> everRun = new ArrayList<>();
        for (int start = 0; start < 3; start++) {
            int accepted = 0;
            for (SignalStatus.State pass : List.of(QUEUED, NEW)) {
                for (int i = 0; i < signals; i++) {
                    if (states[i] != pass) {
                        continue;
                    }
                    switch (decide(states[i], false, false, false, accepted)) {
                        case RUN -> {
                            states[i] = QUEUED;
                            accepted++;
                            if (!everRun.contains(i)) {
                                everRun.add(i);
                            }
                        }
                        case REFUSE -> states[i] = REFUSED;
                        default -> {
                        }
                    }
                }
            }
            if (start == 0) {
                states[everRun.get(0)] = DONE; // the first one finished before the first restart
            }
        }
        assertThat(everRun).as("signals ever accepted").containsExactly(0, 1, 2);
        assertThat(java.util.Arrays.stream(states).filter(s -> s == REFUSED).count()).isEqualTo(signals - 3);
    }
}
