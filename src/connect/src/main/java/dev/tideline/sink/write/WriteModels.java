package dev.tideline.sink.write;

import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.WriteModel;
import dev.tideline.sink.config.WriteMode;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.plan.WriteFilter;
import org.bson.BsonDocument;

/** The driver write for a change: replace (upserting or not), or delete, by the {@link WriteFilter} of the change. */
final class WriteModels {
    private WriteModels() {
    }

    /** @param replacement the change's document, possibly already encoded (see {@link DocumentSize#encoded}) */
    static WriteModel<BsonDocument> of(SinkChange c, WriteMode mode, BsonDocument replacement, WriteFilter filter) {
        if (c.isDelete()) {
            return new DeleteOneModel<>(filter.of(c));
        }
        return new ReplaceOneModel<>(filter.of(c), replacement, new ReplaceOptions().upsert(mode == WriteMode.UPSERT));
    }
}
