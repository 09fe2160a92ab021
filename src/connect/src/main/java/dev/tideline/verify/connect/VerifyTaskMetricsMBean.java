package dev.tideline.verify.connect;

/** JMX view of a scheduled verify task: {@code dev.tideline:type=verify-task,connector=<name>,task=0}. */
public interface VerifyTaskMetricsMBean {
    /** ok, degraded or down, from the last finished run. */
    String getHealth();

    String[] getHealthReasons();

    long getRuns();

    boolean isRunInProgress();

    /** Documents compared so far by the run in progress (both sides). */
    long getCurrentRunDocuments();

    /** ISO-8601; empty before the first run. */
    String getLastRunStart();

    long getLastRunMillis();

    /** equal, differs, unsettled or failed; empty before the first run. */
    String getLastOutcome();

    long getLastDocuments();

    double getLastDocumentsPerSecond();

    long getLastMissing();

    long getLastExtra();

    long getLastDifferent();

    long getLastInFlight();

    long getLastSettled();

    /** ISO-8601: when the next run starts. */
    String getNextRunAt();
}
