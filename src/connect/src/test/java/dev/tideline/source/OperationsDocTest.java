package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.event.Namespace;
import dev.tideline.source.capture.InvalidOffsetException;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.BsonDateTime;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * The offset recipes of docs/operations.md are what {@link SourceOffset} reads and writes: each
 * documented PATCH body parses to the offset the recipe promises, and the documented refusal is the
 * message the connector really gives. Keys are never spelled here: only SourceOffset knows them.
 */
class OperationsDocTest {
    private static final Path DOC = Path.of("docs/operations.md");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Namespace ORDERS = new Namespace("shop", "orders");

    @Test
    void resetOneIsANullOffsetForTheCollectionsPartition() throws IOException {
        JsonNode entry = onlyEntry(block("offset-example: reset-one"));
        assertThat(partition(entry)).isEqualTo(SourcePartition.of(ORDERS));
        assertThat(entry.get("offset").isNull()).isTrue();
        Map<Map<String, ?>, Map<String, ?>> reset = new HashMap<>();
        reset.put(SourcePartition.of(ORDERS), null);
        assertThat(new TidelineSourceConnector().alterOffsets(Map.of(), reset)).isTrue();
    }

    @Test
    void streamFromIsAnOperationTime() throws IOException {
        JsonNode entry = onlyEntry(block("offset-example: stream-from"));
        assertThat(partition(entry)).isEqualTo(SourcePartition.of(ORDERS));
        SourceOffset documented = SourceOffset.fromMap(offset(entry));
        long seconds = Instant.parse("2026-11-30T08:00:00Z").getEpochSecond();
        assertThat(documented).isEqualTo(SourceOffset.streamFrom(new BsonTimestamp((int) seconds, 0)));
        // the shell arithmetic the doc shows gives the same number
        assertThat(documented.startAt().getValue()).isEqualTo(seconds << 32);
        assertThat(block("offset-example: stream-from")).contains(Long.toString(seconds << 32));
    }

    @Test
    void scanFromIsADateKeyForDocumentsAndDeleteMarkers() throws IOException {
        JsonNode entry = onlyEntry(block("offset-example: scan-from"));
        BsonDateTime date = new BsonDateTime(Instant.parse("2026-11-01T00:00:00Z").toEpochMilli());
        assertThat(SourceOffset.fromMap(offset(entry))).isEqualTo(SourceOffset.scan(date, null, date, null));
    }

    @Test
    void theMalformedExampleIsRefusedWithTheDocumentedMessage() throws IOException {
        JsonNode entry = onlyEntry(block("offset-example: malformed"));
        String documentedError = block("offset-error: malformed").trim();
        TidelineSourceConnector connector = new TidelineSourceConnector();
        assertThatThrownBy(() -> connector.alterOffsets(Map.of(), Map.of(partition(entry), offset(entry))))
                .isInstanceOf(InvalidOffsetException.class)
                .hasMessage(documentedError);
        assertThat(documentedError).contains("'startAt'");
    }

    @Test
    void theDocumentedKeysAreTheOnesSourceOffsetWrites() throws IOException {
        BsonDateTime date = new BsonDateTime(0);
        assertThat(offset(onlyEntry(block("offset-example: stream-from"))).keySet())
                .isEqualTo(SourceOffset.streamFrom(new BsonTimestamp(1, 0)).toMap().keySet());
        assertThat(offset(onlyEntry(block("offset-example: scan-from"))).keySet())
                .isEqualTo(SourceOffset.scan(date, null, date, null).toMap().keySet());
    }

    /** The fenced block that follows {@code <!-- marker -->} in the doc. */
    static String block(String marker) throws IOException {
        String doc = Files.readString(DOC);
        Matcher m = Pattern.compile(Pattern.quote("<!-- " + marker + " -->") + "\\s*```[a-z]*\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertThat(m.find()).as("block " + marker + " in " + DOC).isTrue();
        return m.group(1);
    }

    private static JsonNode onlyEntry(String body) throws IOException {
        List<JsonNode> entries = new ArrayList<>();
        JSON.readTree(body).get("offsets").elements().forEachRemaining(entries::add);
        assertThat(entries).hasSize(1);
        return entries.get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> partition(JsonNode entry) {
        return JSON.convertValue(entry.get("partition"), HashMap.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> offset(JsonNode entry) {
        return JSON.convertValue(entry.get("offset"), HashMap.class);
    }
}
