package dev.tideline.fanout.channel;

import java.util.ArrayList;
import java.util.List;

/** Records what a channel hands a subscriber: its plans, and the offsets of the live changes. */
final class RecordingListener implements ChannelListener {
    final List<ResumePlan> plans = new ArrayList<>();
    final List<Long> offsets = new ArrayList<>();
    final List<String> events = new ArrayList<>();

    @Override
    public synchronized void registered(ChannelName channel, ResumePlan plan) {
        plans.add(plan);
        events.add("registered:" + channel.collection() + ":" + plan.wire());
    }

    @Override
    public synchronized void change(RoutedChange change) {
        offsets.add(change.offset());
        events.add(change.channel().collection() + "@" + change.source().partition() + ":" + change.offset());
    }
}
