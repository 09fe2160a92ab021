package dev.tideline.fanout.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;

/**
 * The frames one connection has waiting for its next write, appended as they come (the change's
 * shared JSON copied in, the connection's own event id written in place, no object per frame) and
 * taken whole at the next flush: one buffer and one write per connection per flush, however many
 * frames it holds. Room is kept before the frames for a transport's prefix (an HTTP chunk's size
 * line). Not thread-safe: its connection guards it.
 */
final class FrameBuffer {
    /** Before the frames: an HTTP chunk size line is at most 8 hex digits and CRLF. */
    static final int HEADROOM = 10;
    private static final int MIN_CAPACITY = 256;

    private byte[] bytes = new byte[HEADROOM + MIN_CAPACITY];
    private int end = HEADROOM;

    boolean isEmpty() {
        return end == HEADROOM;
    }

    /** Bytes of the frames held. */
    int size() {
        return end - HEADROOM;
    }

    FrameBuffer bytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, end, b.length);
        end += b.length;
        return this;
    }

    FrameBuffer oneByte(int b) {
        ensure(1);
        bytes[end++] = (byte) b;
        return this;
    }

    /** Text known to be ASCII (event names, event ids: channel names, topics and numbers). */
    FrameBuffer ascii(CharSequence s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            bytes[end++] = (byte) s.charAt(i);
        }
        return this;
    }

    /**
     * The frames held, between {@code prefix} (at most {@link #HEADROOM} bytes) and {@code suffix}, as one
     * buffer; this one starts empty again, sized for as much.
     */
    ByteBuf take(byte[] prefix, byte[] suffix) {
        return take(prefix, prefix.length, suffix);
    }

    /** {@link #take(byte[], byte[])} with the first {@code prefixLength} bytes of {@code prefix}. */
    ByteBuf take(byte[] prefix, int prefixLength, byte[] suffix) {
        if (prefixLength > HEADROOM) {
            throw new IllegalArgumentException("a prefix of " + prefixLength + " bytes does not fit the " + HEADROOM + " kept for it");
        }
        bytes(suffix);
        int start = HEADROOM - prefixLength;
        System.arraycopy(prefix, 0, bytes, start, prefixLength);
        ByteBuf out = Unpooled.wrappedBuffer(bytes, start, end - start);
        bytes = new byte[HEADROOM + Math.max(MIN_CAPACITY, end - HEADROOM)];
        end = HEADROOM;
        return out;
    }

    private void ensure(int more) {
        if (end + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, end + more));
        }
    }
}
