package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.MessageFlag;
import de.bwaldvogel.mongo.wire.MongoWireMessageEncoder;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import de.bwaldvogel.mongo.wire.MongoWireReplyEncoder;
import de.bwaldvogel.mongo.wire.OpCode;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MessageHeader;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoReply;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.MessageToByteEncoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The stand-in's wire codec: mongo-java-server's, with the BSON of {@code OP_MSG} requests and of all replies
 * read and written by {@link LosslessBson}, so that binary values keep their subtype and deprecated types stay
 * what they were (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/#op_msg for the framing).
 *
 * <p>mongo-java-server builds each connection's pipeline itself; the backend puts these handlers in place of
 * its codec when it handles a connection's first command, the handshake. A driver sends nothing else on a
 * connection before the handshake's reply, which these handlers already write, and Netty hands any bytes the
 * old decoder still held to its replacement. Legacy {@code OP_QUERY} requests (drivers send the handshake
 * that way) are still read by mongo-java-server's decoder.
 */
public final class LosslessWire {
    private static final String DECODER = "tideline-lossless-decoder";
    private static final String MESSAGE_ENCODER = "tideline-lossless-message-encoder";
    private static final String REPLY_ENCODER = "tideline-lossless-reply-encoder";
    private static final int HEADER_BYTES = 16;
    private static final int CHECKSUM_BYTES = 4;

    private LosslessWire() {
    }

    /** Puts these handlers in place of mongo-java-server's codec on {@code channel}, once. */
    public static void install(Channel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        if (pipeline.get(DECODER) != null || pipeline.get(MongoWireProtocolHandler.class) == null) {
            return;
        }
        pipeline.replace(MongoWireReplyEncoder.class, REPLY_ENCODER, new ReplyEncoder());
        pipeline.replace(MongoWireMessageEncoder.class, MESSAGE_ENCODER, new MessageEncoder());
        pipeline.replace(MongoWireProtocolHandler.class, DECODER, new Decoder());
    }

    /** Reads {@code OP_MSG} requests; hands other op codes to mongo-java-server's decoder. */
    static final class Decoder extends MongoWireProtocolHandler {
        @Override
        protected ClientRequest decode(ChannelHandlerContext ctx, ByteBuf buf) throws Exception {
            if (buf.readableBytes() < HEADER_BYTES || buf.getIntLE(buf.readerIndex() + 12) != OpCode.OP_MSG.getId()) {
                return buf.readableBytes() < HEADER_BYTES ? null : super.decode(ctx, buf);
            }
            int totalLength = buf.getIntLE(buf.readerIndex());
            if (totalLength > MAX_MESSAGE_SIZE_BYTES) {
                throw new IOException("message too large: " + totalLength + " bytes");
            }
            if (buf.readableBytes() < totalLength) {
                return null; // the rest has not come yet
            }
            ByteBuf in = buf.readSlice(totalLength);
            in.skipBytes(4);
            int requestId = in.readIntLE();
            int responseTo = in.readIntLE();
            in.skipBytes(4); // the op code
            int flags = in.readIntLE();
            boolean checksum = MessageFlag.CHECKSUM_PRESENT.isSet(flags);
            int unsupported = checksum ? MessageFlag.CHECKSUM_PRESENT.removeFrom(flags) : flags;
            // exhaustAllowed: the client could take several replies; one is what it gets (the server may, not must,
            // stream them: https://github.com/mongodb/specifications/blob/master/source/message/OP_MSG.md#exhaustallowed)
            unsupported = MessageFlag.EXHAUST_ALLOWED.isSet(unsupported) ? MessageFlag.EXHAUST_ALLOWED.removeFrom(unsupported) : unsupported;
            if (unsupported != 0) {
                throw new UnsupportedOperationException("flags=" + unsupported + " not yet supported"); // as mongo-java-server
            }
            int sectionsEnd = totalLength - (checksum ? CHECKSUM_BYTES : 0);
            Document body = null;
            Map<String, List<Document>> sequences = new java.util.LinkedHashMap<>();
            while (in.readerIndex() < sectionsEnd) {
                byte kind = in.readByte();
                if (kind == MongoMessage.SECTION_KIND_BODY) {
                    if (body != null) {
                        throw new IOException("an OP_MSG with two body sections");
                    }
                    body = LosslessBson.decode(in);
                } else if (kind == MongoMessage.SECTION_KIND_DOCUMENT_SEQUENCE) {
                    int start = in.readerIndex();
                    int size = in.readIntLE();
                    String identifier = BsonDecoder.decodeCString(in);
                    List<Document> documents = new ArrayList<>();
                    while (in.readerIndex() < start + size) {
                        documents.add(LosslessBson.decode(in));
                    }
                    if (sequences.put(identifier, documents) != null) {
                        throw new IOException("an OP_MSG with two document sequences named " + identifier);
                    }
                } else {
                    throw new IllegalArgumentException("Unexpected section kind: " + kind);
                }
            }
            in.skipBytes(checksum ? CHECKSUM_BYTES : 0); // not checked, as mongo-java-server does not
            if (body == null || in.isReadable()) {
                throw new IOException("an OP_MSG without a body section, or with bytes after its sections");
            }
            for (Map.Entry<String, List<Document>> sequence : sequences.entrySet()) {
                if (body.put(sequence.getKey(), sequence.getValue()) != null) {
                    throw new IOException("an OP_MSG whose document sequence " + sequence.getKey() + " is also in its body");
                }
            }
            return new MongoMessage(ctx.channel(), new MessageHeader(totalLength, requestId, responseTo), body);
        }
    }

    /** Writes {@code OP_MSG} replies. */
    static final class MessageEncoder extends MessageToByteEncoder<MongoMessage> {
        @Override
        protected void encode(ChannelHandlerContext ctx, MongoMessage message, ByteBuf out) {
            int start = out.writerIndex();
            out.writeIntLE(0); // the length, once known
            out.writeIntLE(message.getHeader().getRequestID());
            out.writeIntLE(message.getHeader().getResponseTo());
            out.writeIntLE(OpCode.OP_MSG.getId());
            out.writeIntLE(message.getFlags());
            out.writeByte(MongoMessage.SECTION_KIND_BODY);
            documents(ctx, List.of(message.getDocument()), out);
            out.setIntLE(start, out.writerIndex() - start);
        }
    }

    /** Writes {@code OP_REPLY} replies (to legacy {@code OP_QUERY} requests). */
    static final class ReplyEncoder extends MessageToByteEncoder<MongoReply> {
        @Override
        protected void encode(ChannelHandlerContext ctx, MongoReply reply, ByteBuf out) {
            int start = out.writerIndex();
            out.writeIntLE(0);
            out.writeIntLE(reply.getHeader().getRequestID());
            out.writeIntLE(reply.getHeader().getResponseTo());
            out.writeIntLE(OpCode.OP_REPLY.getId());
            out.writeIntLE(reply.getFlags());
            out.writeLongLE(reply.getCursorId());
            out.writeIntLE(reply.getStartingFrom());
            out.writeIntLE(reply.getDocuments().size());
            documents(ctx, reply.getDocuments(), out);
            out.setIntLE(start, out.writerIndex() - start);
        }
    }

    /** A reply that cannot be written closes the connection, as mongo-java-server's encoders do: the client sees it fail. */
    private static void documents(ChannelHandlerContext ctx, List<Document> documents, ByteBuf out) {
        try {
            for (Document document : documents) {
                LosslessBson.encode(document, out);
            }
        } catch (RuntimeException e) {
            ctx.channel().close();
            throw e;
        }
    }
}
