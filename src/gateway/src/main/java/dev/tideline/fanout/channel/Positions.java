package dev.tideline.fanout.channel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Where one subscriber stands in one channel: per topic partition, the offset of the next record it
 * has not been given ({@code -1}: not known). Every record of the channel before that offset was
 * delivered to it (or came before its subscription), so any gateway reading the same topics resumes it
 * exactly. Text form: {@code <topic>@<o0>.<o1>;<topic>@<o0>} with one offset per partition, an empty
 * one where unknown. Not thread-safe: its connection guards it.
 */
public final class Positions {
    static final int MAX_TOPICS = 64;
    static final int MAX_PARTITIONS = 10_000;

    private final Map<String, long[]> byTopic = new TreeMap<>();

    public Positions() {
    }

    public Positions(Map<TopicPartition, Long> offsets) {
        offsets.forEach(this::set);
    }

    /** The next offset for the partition, or -1 when not known. */
    public long get(TopicPartition tp) {
        long[] offsets = byTopic.get(tp.topic());
        return offsets == null || tp.partition() >= offsets.length ? -1 : offsets[tp.partition()];
    }

    public void set(TopicPartition tp, long next) {
        if (tp.partition() < 0 || tp.partition() >= MAX_PARTITIONS || next < 0) {
            throw new IllegalArgumentException("bad position " + tp + "@" + next);
        }
        long[] offsets = byTopic.get(tp.topic());
        if (offsets == null || tp.partition() >= offsets.length) {
            long[] grown = new long[tp.partition() + 1];
            Arrays.fill(grown, -1);
            if (offsets != null) {
                System.arraycopy(offsets, 0, grown, 0, offsets.length);
            }
            byTopic.put(tp.topic(), grown);
            offsets = grown;
        }
        offsets[tp.partition()] = next;
    }

    /** Moves a known position forward to {@code next} (never back); an unknown one stays unknown. */
    public void advanceKnown(TopicPartition tp, long next) {
        long now = get(tp);
        if (now >= 0 && next > now) {
            set(tp, next);
        }
    }

    /** Moves the position forward to {@code next}, setting it when unknown. */
    public void advance(TopicPartition tp, long next) {
        if (next > get(tp)) {
            set(tp, next);
        }
    }

    /** Every partition with a known position. */
    public Map<TopicPartition, Long> known() {
        Map<TopicPartition, Long> out = new java.util.LinkedHashMap<>();
        byTopic.forEach((topic, offsets) -> {
            for (int p = 0; p < offsets.length; p++) {
                if (offsets[p] >= 0) {
                    out.put(new TopicPartition(topic, p), offsets[p]);
                }
            }
        });
        return out;
    }

    public List<String> topics() {
        return new ArrayList<>(byTopic.keySet());
    }

    public boolean isEmpty() {
        return byTopic.isEmpty();
    }

    public Positions copy() {
        Positions c = new Positions();
        byTopic.forEach((t, o) -> c.byTopic.put(t, o.clone()));
        return c;
    }

    void appendTo(StringBuilder sb) {
        boolean firstTopic = true;
        for (Map.Entry<String, long[]> e : byTopic.entrySet()) {
            if (!firstTopic) {
                sb.append(';');
            }
            firstTopic = false;
            sb.append(e.getKey()).append('@');
            long[] offsets = e.getValue();
            for (int p = 0; p < offsets.length; p++) {
                if (p > 0) {
                    sb.append('.');
                }
                if (offsets[p] >= 0) {
                    sb.append(offsets[p]);
                }
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        appendTo(sb);
        return sb.toString();
    }

    /** @throws IllegalArgumentException when the text is not a positions part */
    static Positions parse(String text) {
        Positions out = new Positions();
        if (text.isEmpty()) {
            return out;
        }
        String[] topics = text.split(";", -1);
        if (topics.length > MAX_TOPICS) {
            throw new IllegalArgumentException("more than " + MAX_TOPICS + " topics");
        }
        for (String part : topics) {
            int at = part.indexOf('@');
            if (at <= 0 || at != part.lastIndexOf('@')) {
                throw new IllegalArgumentException("'" + part + "' is not <topic>@<offsets>");
            }
            String topic = part.substring(0, at);
            if (!topic.matches("[a-zA-Z0-9._-]{1,249}") || out.byTopic.containsKey(topic)) {
                throw new IllegalArgumentException("bad or repeated topic '" + topic + "'");
            }
            String[] offsets = part.substring(at + 1).split("\\.", -1);
            if (offsets.length > MAX_PARTITIONS) {
                throw new IllegalArgumentException("more than " + MAX_PARTITIONS + " partitions");
            }
            long[] values = new long[offsets.length];
            for (int p = 0; p < offsets.length; p++) {
                String o = offsets[p];
                if (o.isEmpty()) {
                    values[p] = -1;
                } else if (o.length() <= 18 && o.chars().allMatch(Character::isDigit)) {
                    values[p] = Long.parseLong(o);
                } else {
                    throw new IllegalArgumentException("bad offset '" + o + "'");
                }
            }
            out.byTopic.put(topic, values);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Positions p && known().equals(p.known());
    }

    @Override
    public int hashCode() {
        return known().hashCode();
    }
}
