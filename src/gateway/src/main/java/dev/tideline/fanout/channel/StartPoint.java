package dev.tideline.fanout.channel;

/** Where a subscription to one channel starts. */
public sealed interface StartPoint {
    /** Changes from now on. */
    record Live() implements StartPoint {
    }

    /** After the given positions (a resume); a topic they do not name is read from {@code subscribedAtMillis} on. */
    record After(Positions positions, long subscribedAtMillis) implements StartPoint {
    }

    /** Everything the topics still hold ({@code from=earliest}). */
    record Earliest() implements StartPoint {
    }

    /** The client sent a cursor the gateway cannot read: it must reload, then live changes follow. */
    record BadCursor() implements StartPoint {
    }

    StartPoint LIVE = new Live();
    StartPoint EARLIEST = new Earliest();
    StartPoint BAD_CURSOR = new BadCursor();
}
