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
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.BsonBinaryWriter;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Candidates waiting for a re-check, on disk rather than in memory: an empty destination makes every
 * source id a candidate, and verify's memory must not grow with that. Each candidate is one BSON
 * document; the file is deleted on {@link #close()} (a kill leaves it in the temp directory, named
 * {@code tideline-verify-*.spool}).
 */
final class CandidateSpool implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    private OutputStream out;
    private long count;

    private CandidateSpool(Path file) throws IOException {
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
        this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
    }

    static CandidateSpool create(Path directory) {
        try {
            Path file = Files.createTempFile(directory, "tideline-verify-", ".spool");
            file.toFile().deleteOnExit();
            return new CandidateSpool(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a spool file for re-checks in " + directory, e);
        }
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

    /** Every candidate, in the order added; the spool must not be added to while reading. */
    Iterator<Candidate> read() {
        flush();
        InputStream in;
        try {
            in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the re-check spool " + file, e);
        }
        DataInputStream data = new DataInputStream(in);
        return new Iterator<>() {
            private Candidate next = advance();

            private Candidate advance() {
                try {
                    byte[] len = new byte[4];
                    try {
                        data.readFully(len);
                    } catch (EOFException end) {
                        data.close();
                        return null;
                    }
                    int size = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getInt();
                    byte[] doc = new byte[size];
                    System.arraycopy(len, 0, doc, 0, 4);
                    data.readFully(doc, 4, size - 4);
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
            out.close();
        } catch (IOException e) {
            // nothing in the file is needed any more: it is deleted below, which reports its own failure
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the re-check spool " + file + "; delete it by hand", e);
            }
        }
    }
}
