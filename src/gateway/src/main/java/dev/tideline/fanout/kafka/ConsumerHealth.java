package dev.tideline.fanout.kafka;

/**
 * The consumer's real state for /health: {@code starting} until its first assignment, {@code running}
 * while it reaches the brokers, {@code down} while it cannot (it keeps trying and resumes where it
 * was), {@code stopped} once closed or dead. Written by the consumer thread, read by anyone.
 */
public final class ConsumerHealth {
    public enum State { STARTING, RUNNING, DOWN, STOPPED }

    private volatile State state = State.STARTING;
    private volatile long lastContactMillis;
    private volatile long downSinceMillis;
    private volatile long lagRecords = -1;
    private volatile String lastError;
    private volatile long lastErrorMillis;

    /** The brokers answered; {@code lag} is what the topics hold beyond what was routed. */
    void contact(long nowMillis, long lag) {
        lastContactMillis = nowMillis;
        lagRecords = lag;
        state = State.RUNNING;
        downSinceMillis = 0;
    }

    /** @return true when this starts an outage (the caller logs it once) */
    boolean failed(long nowMillis, Throwable error) {
        lastError = error.getClass().getSimpleName() + ": " + error.getMessage();
        lastErrorMillis = nowMillis;
        boolean starts = state != State.DOWN;
        if (starts) {
            downSinceMillis = nowMillis;
        }
        state = State.DOWN;
        return starts;
    }

    void stopped(String why) {
        if (why != null) {
            lastError = why;
            lastErrorMillis = System.currentTimeMillis();
        }
        state = State.STOPPED;
    }

    public State state() {
        return state;
    }

    /** Whether changes can flow now: the answer /health gives with its status code. */
    public boolean canDeliver() {
        return state == State.RUNNING;
    }

    /** Records the topics held beyond what was routed, at the last contact; -1 before the first. */
    public long lagRecords() {
        return lagRecords;
    }

    public long downSinceMillis() {
        return downSinceMillis;
    }

    /** Everything, for operators: lag, last contact and the last error's text. */
    public String json(long nowMillis) {
        return json(nowMillis, true);
    }

    /**
     * @param internals false for anyone (a load balancer): the state alone, never the lag nor the
     *                  client's error text, which names brokers, addresses and settings
     */
    public String json(long nowMillis, boolean internals) {
        State s = state;
        StringBuilder sb = new StringBuilder("{\"status\":\"").append(s == State.RUNNING ? "ok" : s == State.STARTING ? "starting" : "down")
                .append("\",\"consumer\":{\"state\":\"").append(s.name().toLowerCase(java.util.Locale.ROOT)).append('"');
        if (s == State.DOWN) {
            sb.append(",\"downForMs\":").append(nowMillis - downSinceMillis);
        }
        if (!internals) {
            return sb.append("}}").toString();
        }
        sb.append(",\"lagRecords\":").append(lagRecords)
                .append(",\"lastContactMsAgo\":").append(lastContactMillis == 0 ? -1 : nowMillis - lastContactMillis);
        String err = lastError;
        if (err != null) {
            sb.append(",\"lastError\":\"").append(escape(err)).append("\",\"lastErrorMsAgo\":").append(nowMillis - lastErrorMillis);
        }
        return sb.append("}}").toString();
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(' ');
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
