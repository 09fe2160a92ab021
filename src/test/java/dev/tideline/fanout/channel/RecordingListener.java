package dev.tideline.fanout.channel;

import java.util.ArrayList;
import java.util.List;

/** Records what a channel hands a subscriber, as short strings: {@code sub:ch@3}, {@code ch#4}, {@code lost:ch@9:reason}. */
final class RecordingListener implements ChannelListener {
    final List<String> events = new ArrayList<>();
    final List<Long> seqs = new ArrayList<>();

    @Override
    public synchronized void subscribed(ChannelName channel, String epoch, long currentSeq) {
        events.add("sub:" + channel.collection() + "@" + currentSeq);
    }

    @Override
    public synchronized void change(SequencedChange change) {
        events.add(change.channel().collection() + "#" + change.seq());
        seqs.add(change.seq());
    }

    @Override
    public synchronized void unrecoverable(ChannelName channel, String epoch, long currentSeq, String reason) {
        events.add("lost:" + channel.collection() + "@" + currentSeq + ":" + reason);
    }
}
