package dev.tideline.fanout.channel;

/**
 * What a subscription receives from a channel. Called with the channel's lock held, so calls for
 * one channel arrive in seq order; implementations must never block (they enqueue and return).
 */
public interface ChannelListener {
    /** The subscription is registered: every change after {@code currentSeq} will follow. */
    void subscribed(ChannelName channel, String epoch, long currentSeq);

    void change(SequencedChange change);

    /**
     * The changes since the client's position are no longer held (or its epoch is another run's):
     * the client must re-snapshot; live changes after {@code currentSeq} follow.
     */
    void unrecoverable(ChannelName channel, String epoch, long currentSeq, String reason);
}
