package dev.tideline.sink.write;

import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.WriteModel;
import dev.tideline.sink.check.ExactMatch;
import dev.tideline.sink.config.WriteMode;
import dev.tideline.sink.decode.SinkChange;
import org.bson.BsonDocument;

/** The driver write for a change: replace by {@code _id} (upserting or not), or delete by {@code _id}. */
final class WriteModels {
    private WriteModels() {
    }

    /** @param replacement the change's document, possibly already encoded (see {@link DocumentSize#encoded}) */
    static WriteModel<BsonDocument> of(SinkChange c, WriteMode mode, BsonDocument replacement) {
        if (c.isDelete()) {
            return new DeleteOneModel<>(ExactMatch.eq("_id", c.id()));
        }
        return new ReplaceOneModel<>(ExactMatch.eq("_id", c.id()), replacement,
                new ReplaceOptions().upsert(mode == WriteMode.UPSERT));
    }
}
