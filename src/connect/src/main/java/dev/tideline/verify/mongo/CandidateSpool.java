package dev.tideline.verify.mongo;

import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Observation;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.bson.BsonBinaryWriter;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Candidates waiting for a re-check, on disk rather than in memory: an empty destination makes every
 * source id a candidate, and verify's memory must not grow with that. Each candidate is one BSON
 * document. The file is unlinked as soon as it is open (it lives on through the open channel), so
 * even a killed run leaves nothing behind; where the file system refuses that, it is deleted on
 * {@link #close()}.
 */
final class CandidateSpool implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    private final OutputStream out;
    private boolean unlinked;
    private long count;

    private CandidateSpool(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
        this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
    }

    static CandidateSpool create(Path directory) {
        Path file;
        FileChannel channel;
        try {
            file = Files.createTempFile(directory, "tideline-verify-", ".spool");
            channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a spool file for re-checks in " + directory, e);
        }
        CandidateSpool spool = new CandidateSpool(file, channel);
        try {
            Files.delete(file);
            spool.unlinked = true;
        } catch (IOException notOnThisFileSystem) {
            // an open file cannot be unlinked here (Windows): close() deletes it, a kill leaves it in the temp directory
            file.toFile().deleteOnExit();
        }
        return spool;
    }

    void add(Candidate c) {
        BsonDocument d = new BsonDocument("c", new BsonInt32(c.collection())).append("i", c.id())
                .append("k", new BsonString(c.seenAs().wireName())).append("t", new BsonInt64(c.observedAtMs()));
        if (c.observation() != null) {
            d.append("o", BsonBoolean.TRUE);
            if (c.observation().source() != null) {
                d.append("s", new BsonString(c.observation().source()));
            }
            if (c.observation().destination() != null) {
                d.append("d", new BsonString(c.observation().destination()));
            }
        }
        BasicOutputBuffer buffer = new BasicOutputBuffer();
        new BsonDocumentCodec().encode(new BsonBinaryWriter(buffer), d, EncoderContext.builder().build());
        try {
            buffer.pipe(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the re-check spool " + file, e);
        }
        count++;
    }

    long count() {
        return count;
    }

    /** Where the next candidate goes: {@link #truncate} drops what was added after it. */
    long mark() {
        flush();
        try {
            return channel.size();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot size the re-check spool " + file, e);
        }
    }

    void truncate(long mark, long countAtMark) {
        flush();
        try {
            channel.truncate(mark);
            channel.position(mark);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot truncate the re-check spool " + file, e);
        }
        count = countAtMark;
    }

    /** Every candidate, in the order added, read through the open channel; the spool must not be added to while reading. */
    Iterator<Candidate> read() {
        long size = mark();
        DataInputStream data = new DataInputStream(new BufferedInputStream(new PositionalInput(channel, size), 1 << 16));
        return new Iterator<>() {
            private Candidate next = advance();

            private Candidate advance() {
                try {
                    byte[] len = new byte[4];
                    try {
                        data.readFully(len);
                    } catch (EOFException end) {
                        return null;
                    }
                    int docSize = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getInt();
                    byte[] doc = new byte[docSize];
                    System.arraycopy(len, 0, doc, 0, 4);
                    data.readFully(doc, 4, docSize - 4);
                    return decode(new RawBsonDocument(doc));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read the re-check spool " + file, e);
                }
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public Candidate next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                Candidate c = next;
                next = advance();
                return c;
            }
        };
    }

    /** Reads the channel from 0 to {@code size} without moving its position (where writes go). */
    private static final class PositionalInput extends InputStream {
        private final FileChannel channel;
        private final long size;
        private long position;

        PositionalInput(FileChannel channel, long size) {
            this.channel = channel;
            this.size = size;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (position >= size) {
                return -1;
            }
            int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, size - position)), position);
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }

    private static Candidate decode(RawBsonDocument d) {
        Observation o = null;
        if (d.containsKey("o")) {
            o = new Observation(text(d.get("s")), text(d.get("d")));
        }
        return new Candidate(d.getInt32("c").getValue(), d.get("i"), FindingKind.fromWireName(d.getString("k").getValue()), o,
                d.getInt64("t").getValue());
    }

    private static String text(BsonValue v) {
        return v == null ? null : v.asString().getValue();
    }

    private void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the re-check spool " + file, e);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
            if (!unlinked) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the re-check spool " + file + "; delete it by hand if it is still there", e);
        }
    }
}
