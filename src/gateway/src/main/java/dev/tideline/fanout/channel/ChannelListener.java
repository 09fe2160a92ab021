package dev.tideline.fanout.channel;

/**
 * A subscriber of channels. Called with the channel's lock held, so calls for one channel arrive in
 * the order changes were published; implementations must never block (they enqueue and return).
 */
public interface ChannelListener {
    /** Registered with this plan: every live change of the channel from now on follows. */
    void registered(ChannelName channel, ResumePlan plan);

    void change(RoutedChange change);
}
