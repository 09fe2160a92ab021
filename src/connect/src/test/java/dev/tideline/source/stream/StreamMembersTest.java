package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.CopyStart;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.capture.StreamPositionTest;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class StreamMembersTest {
    private final DatabaseStreamTest.Recorder handles = new DatabaseStreamTest.Recorder();

    private static StreamPosition at(int seconds) {
        return StreamPosition.afterToken(StreamPositionTest.token(seconds, 1, "01"), null);
    }

    private static RawChangeEvent rename(String from, String to, int seconds) {
        BsonDocument e = new BsonDocument("_id", StreamPositionTest.token(seconds, 1, "01"))
                .append("operationType", new BsonString("rename")).append("clusterTime", new BsonTimestamp(seconds, 1))
                .append("ns", new BsonDocument("db", new BsonString(DatabaseStreamTest.DB)).append("coll", new BsonString(from)))
                .append("to", new BsonDocument("db", new BsonString(DatabaseStreamTest.DB)).append("coll", new BsonString(to)));
        return RawChangeEvent.parse(new RawBsonDocument(e, new BsonDocumentCodec()));
    }

    /** The rename of staging onto orders at 150, read by a stream whose members have it as new or not. */
    private static StreamMembers.Batch readRename(StreamMembers members) {
        StreamMembers.Batch batch = new StreamMembers.Batch();
        members.route(rename("staging", "orders", 150), at(150), 0, batch);
        return batch;
    }

    @Test
    void aRenameOntoAMemberMakesItCopiedAgain() {
        StreamMembers members = new StreamMembers("shop", 0);
        members.add(handles.handle("orders"), new BsonDocument(), at(100), false, 0);
        StreamMembers.Batch batch = readRename(members);
        assertThat(batch.recopies).as("copied again after the rename's cluster time")
                .containsExactly(Map.entry(handles.handle("orders").ns(), new BsonTimestamp(150, 1)));
        assertThat(batch.deliveries).extracting(d -> ((Captured.Control) d.item()).type()).containsExactly(ControlType.RENAMED_INTO);
    }

    @Test
    void aRenameReadAgainAfterARewindIsNotCopiedAgain() {
        // orders was copied after the rename at 150 (its copy started at 160); another collection joins at 90,
        // so the stream opens at 90 and reads the rename again: orders already has what the rename did
        StreamMembers members = new StreamMembers("shop", 0);
        members.add(handles.handle("orders"), new BsonDocument(), StreamPosition.atOperationTime(new BsonTimestamp(160, 0)), true, 0);
        members.add(handles.handle("joined"), new BsonDocument(), at(90), false, 0);
        StreamMembers.Batch batch = readRename(members);
        assertThat(batch.recopies).isEmpty();
        assertThat(batch.deliveries).isEmpty();
    }

    @Test
    void theCopyARenameCausesCoversItSoEveryLaterRewindBeforeItReadsItAsKnown() {
        // the rename at (150, 1) is read; the server's clock less its margin is then still before it (148), which
        // used to be the copy's start: the copy joined before the rename, the stream rewound to it and read the
        // rename again, and the target was copied again (each rewind within the margin, once more)
        StreamMembers members = new StreamMembers("shop", 0);
        members.add(handles.handle("orders"), new BsonDocument(), at(100), false, 0);
        StreamMembers.Batch read = readRename(members);
        members.handedOver(read, at(150), 0);
        BsonTimestamp clockLessMargin = new BsonTimestamp(148, 0);
        BsonTimestamp copyStart = CopyStart.after(read.recopies.get(handles.handle("orders").ns()), clockLessMargin);

        // the copy is over: orders joins at its start, as CollectionCapture.copied does; a collection joining at 90
        // rewinds the stream before the rename, which it reads again
        members.add(handles.handle("orders"), new BsonDocument(), SourceOffset.streamAfterCopy(copyStart).streamPosition(), true, 0);
        members.add(handles.handle("joined"), new BsonDocument(), at(90), false, 0);
        StreamMembers.Batch rewound = readRename(members);
        assertThat(rewound.recopies).as("the rename's target is copied once: the copy after the rename covers it").isEmpty();
        assertThat(rewound.deliveries).isEmpty();
    }
}
