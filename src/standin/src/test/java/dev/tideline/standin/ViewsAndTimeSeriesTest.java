package dev.tideline.standin;

import static dev.tideline.standin.Streams.namespaces;
import static dev.tideline.standin.Streams.take;
import static dev.tideline.standin.Streams.types;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.CreateViewOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.TimeSeriesOptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: views and time-series collections as MongoDB lists and serves them
 * (https://www.mongodb.com/docs/manual/reference/command/listCollections/, https://www.mongodb.com/docs/manual/core/views/,
 * https://www.mongodb.com/docs/manual/core/timeseries-collections/).
 */
class ViewsAndTimeSeriesTest {
    private MongoFixture mongo;
    private MongoClient client;
    private MongoDatabase db;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        client = mongo.client();
        db = client.getDatabase("catalog");
        db.getCollection("orders").insertMany(List.of(
                new Document("_id", 1).append("status", "open").append("total", 10),
                new Document("_id", 2).append("status", "closed").append("total", 20),
                new Document("_id", 3).append("status", "open").append("total", 30)));
        db.createView("open_orders", "orders", List.of(Aggregates.match(Filters.eq("status", "open"))),
                new CreateViewOptions());
        db.createCollection("metrics", new CreateCollectionOptions().timeSeriesOptions(new TimeSeriesOptions("ts").metaField("host")));
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private Map<String, Document> listed(Document command) {
        Document reply = db.runCommand(command);
        @SuppressWarnings("unchecked")
        List<Document> batch = (List<Document>) ((Document) reply.get("cursor")).get("firstBatch");
        return batch.stream().collect(Collectors.toMap(d -> d.getString("name"), d -> d));
    }

    @Test
    void listCollectionsGivesEachNamespaceItsTypeAndOptions() {
        Map<String, Document> all = listed(new Document("listCollections", 1));

        assertThat(all.keySet()).containsExactlyInAnyOrder("orders", "open_orders", "metrics", "system.buckets.metrics",
                "system.views");
        assertThat(all.get("orders").getString("type")).isEqualTo("collection");
        assertThat(all.get("open_orders").getString("type")).isEqualTo("view");
        assertThat(all.get("open_orders").get("options", Document.class).getString("viewOn")).isEqualTo("orders");
        assertThat(all.get("open_orders").get("info", Document.class).getBoolean("readOnly")).isTrue();
        assertThat(all.get("metrics").getString("type")).isEqualTo("timeseries");
        Document timeseries = all.get("metrics").get("options", Document.class).get("timeseries", Document.class);
        assertThat(timeseries.getString("timeField")).isEqualTo("ts");
        assertThat(timeseries.getString("metaField")).isEqualTo("host");
        assertThat(timeseries.getString("granularity")).isEqualTo("seconds");
        assertThat(all.get("system.views").getString("type")).isEqualTo("collection");
    }

    @Test
    void listCollectionsHonoursFilterAndNameOnly() {
        assertThat(listed(new Document("listCollections", 1).append("filter", new Document("type", "collection"))).keySet())
                .containsExactlyInAnyOrder("orders", "system.buckets.metrics", "system.views");
        assertThat(listed(new Document("listCollections", 1).append("filter", new Document("type", "view"))).keySet())
                .containsExactly("open_orders");
        assertThat(listed(new Document("listCollections", 1).append("filter",
                new Document("type", "collection").append("name", new Document("$not", java.util.regex.Pattern.compile("^system\\.")))))
                .keySet()).containsExactly("orders");
        Map<String, Document> nameOnly = listed(new Document("listCollections", 1).append("nameOnly", true));
        assertThat(nameOnly.get("open_orders")).isEqualTo(new Document("name", "open_orders").append("type", "view"));
        assertThat(db.listCollectionNames().into(new ArrayList<>())).contains("orders", "open_orders", "metrics");
    }

    @Test
    void aViewIsReadThroughItsPipelineAndRefusesWritesIndexesAndChangeStreams() {
        var view = db.getCollection("open_orders");
        assertThat(view.find().sort(Sorts.descending("total")).into(new ArrayList<>()))
                .extracting(d -> d.getInteger("_id")).containsExactly(3, 1);
        assertThat(view.find(Filters.gt("total", 15)).projection(Projections.include("total")).into(new ArrayList<>()))
                .containsExactly(new Document("_id", 3).append("total", 30));
        assertThat(view.countDocuments()).isEqualTo(2);
        assertThat(view.estimatedDocumentCount()).isEqualTo(2);
        assertThat(view.aggregate(List.of(Aggregates.group(null, com.mongodb.client.model.Accumulators.sum("sum", "$total"))))
                .first().getInteger("sum")).isEqualTo(40);
        assertThat(view.distinct("total", Integer.class).into(new ArrayList<>())).containsExactlyInAnyOrder(10, 30);

        assertThatThrownBy(() -> view.insertOne(new Document("_id", 9))).as("a command error, as MongoDB answers it")
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(166));
        assertThatThrownBy(() -> view.createIndex(new Document("total", 1)))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(166));
        assertThatThrownBy(() -> view.watch().cursor().tryNext())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(166);
                    assertThat(e.getErrorCodeName()).isEqualTo("CommandNotSupportedOnView");
                });
        assertThatThrownBy(() -> db.getCollection("metrics").watch().cursor().tryNext())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(166));

        view.drop();
        assertThat(db.listCollectionNames().into(new ArrayList<>())).doesNotContain("open_orders").contains("orders");
        assertThat(db.getCollection("orders").countDocuments()).isEqualTo(3);
    }

    @Test
    void timeSeriesWritesAreReadBackAndStayOutOfDatabaseStreams() {
        try (var stream = db.watch().maxAwaitTime(100, TimeUnit.MILLISECONDS).cursor()) {
            db.getCollection("metrics").insertOne(new Document("ts", Date.from(Instant.now())).append("host", "a").append("v", 1));
            db.getCollection("orders").insertOne(new Document("_id", 4));
            assertThat(namespaces(take(stream, 1))).as("the buckets are a system collection").containsExactly("catalog.orders");
            assertThat(stream.tryNext()).isNull();
        }
        assertThat(db.getCollection("metrics").find(Filters.eq("host", "a")).first().getInteger("v")).isEqualTo(1);
    }

    @Test
    void viewCreationIsAnExpandedCreateEvent() {
        try (var stream = db.watch().showExpandedEvents(true).withDocumentClass(org.bson.BsonDocument.class).cursor()) {
            db.createView("big_orders", "orders", List.of(Aggregates.match(Filters.gt("total", 15))), new CreateViewOptions());
            org.bson.BsonDocument event = stream.tryNext();
            while (event == null) {
                event = stream.tryNext();
            }
            assertThat(event.getString("operationType").getValue()).isEqualTo("create");
            assertThat(event.getDocument("ns").getString("coll").getValue()).isEqualTo("big_orders");
            assertThat(event.getString("nsType").getValue()).isEqualTo("view");
            assertThat(event.getDocument("operationDescription").getString("viewOn").getValue()).isEqualTo("orders");
        }
    }
}
