package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/** connectionStatus replies shaped as MongoDB documents them (showPrivileges: true). */
class PrivilegesTest {
    private static final List<String> SOURCE_NEEDS = List.of("find", "changeStream", "listCollections");

    private static BsonDocument reply(String privileges) {
        return BsonDocument.parse("{\"authInfo\": {\"authenticatedUsers\": [{\"user\": \"cdc\", \"db\": \"admin\"}], "
                + "\"authenticatedUserRoles\": [{\"role\": \"custom\", \"db\": \"admin\"}], "
                + "\"authenticatedUserPrivileges\": " + privileges + "}, \"ok\": 1}");
    }

    @Test
    void withoutAuthenticationNothingIsMissing() {
        BsonDocument open = BsonDocument.parse("{\"authInfo\": {\"authenticatedUsers\": [], \"authenticatedUserRoles\": []}, \"ok\": 1}");
        assertThat(Privileges.missing(open, "shop", SOURCE_NEEDS)).isEmpty();
    }

    @Test
    void aReadRoleOnTheDatabaseLacksNothingTheSourceNeeds() {
        BsonDocument r = reply("[{\"resource\": {\"db\": \"shop\", \"collection\": \"\"}, "
                + "\"actions\": [\"changeStream\", \"collStats\", \"find\", \"listCollections\", \"listIndexes\"]}]");
        assertThat(Privileges.missing(r, "shop", SOURCE_NEEDS)).isEmpty();
    }

    @Test
    void privilegesOnAnotherDatabaseDoNotCount() {
        BsonDocument r = reply("[{\"resource\": {\"db\": \"billing\", \"collection\": \"\"}, \"actions\": [\"find\", \"changeStream\"]}]");
        assertThat(Privileges.missing(r, "shop", SOURCE_NEEDS)).containsExactly("find", "changeStream", "listCollections");
    }

    @Test
    void anyDatabaseAndAnyResourceGrantsCount() {
        BsonDocument anyDb = reply("[{\"resource\": {\"db\": \"\", \"collection\": \"\"}, \"actions\": [\"find\", \"changeStream\"]}]");
        BsonDocument any = reply("[{\"resource\": {\"anyResource\": true}, \"actions\": [\"find\", \"changeStream\", \"listCollections\"]}]");
        assertThat(Privileges.missing(anyDb, "shop", SOURCE_NEEDS)).containsExactly("listCollections");
        assertThat(Privileges.missing(any, "shop", SOURCE_NEEDS)).isEmpty();
    }

    @Test
    void aWriterWithoutRemoveIsToldWhatIsMissing() {
        BsonDocument r = reply("[{\"resource\": {\"db\": \"shop_replica\", \"collection\": \"\"}, \"actions\": [\"find\", \"insert\", \"update\"]}, "
                + "{\"resource\": {\"cluster\": true}, \"actions\": [\"remove\"]}]");
        assertThat(Privileges.missing(r, "shop_replica", List.of("find", "insert", "update", "remove"))).containsExactly("remove");
    }

    @Test
    void aDeploymentStreamNeedsTheGrantOnEveryDatabaseNotOneDatabasesRole() {
        // change.stream.scope=deployment asks under "" (every database): a read role on one database does not cover it
        BsonDocument oneDb = reply("[{\"resource\": {\"db\": \"shop\", \"collection\": \"\"}, \"actions\": [\"find\", \"changeStream\"]}]");
        BsonDocument anyDb = reply("[{\"resource\": {\"db\": \"\", \"collection\": \"\"}, \"actions\": [\"find\", \"changeStream\"]}]");
        assertThat(Privileges.missing(oneDb, "", List.of("find", "changeStream"))).containsExactly("find", "changeStream");
        assertThat(Privileges.missing(anyDb, "", List.of("find", "changeStream"))).isEmpty();
    }
}
