package dev.tideline.fanout.channel;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The channels nobody listens to, least recently used first, kept up to date as listeners come and
 * go and changes are published: at the channel cap the one to drop is the first, found in constant
 * time, where sweeping and sorting every channel on an event loop for each subscription cost time
 * in proportion to all channels. A channel calls in under its own lock; this lock is always taken
 * second, and the hub never takes a channel's lock while holding it.
 */
final class IdleChannels {
    private final LinkedHashMap<ChannelName, Channel> leastRecentFirst = new LinkedHashMap<>(16, 0.75f, true);

    /** The channel has no listener and was just used (created, published to, left by its last listener). */
    synchronized void used(Channel c) {
        leastRecentFirst.put(c.name(), c);
    }

    /** The channel has a listener again, or is gone. */
    synchronized void remove(Channel c) {
        leastRecentFirst.remove(c.name(), c);
    }

    /** Takes out the least recently used idle channel, or null when there is none. */
    synchronized Channel pollLeastRecent() {
        Iterator<Map.Entry<ChannelName, Channel>> it = leastRecentFirst.entrySet().iterator();
        if (!it.hasNext()) {
            return null;
        }
        Channel c = it.next().getValue();
        it.remove();
        return c;
    }

    synchronized int size() {
        return leastRecentFirst.size();
    }
}
