package dev.tideline.sink.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import java.util.List;
import org.junit.jupiter.api.Test;

class DestinationPolicyTest {
    private static final DestinationPolicy ANY = DestinationPolicy.anyDatabase();

    @Test
    void mongoDbsOwnDatabasesSystemCollectionsAndTidelinesOwnAreNeverWritten() {
        for (String ns : List.of("admin.users", "config.chunks", "local.oplog.rs", "Admin.x", "CONFIG.y", "shop.system.views",
                "shop.system.js", "shop._tideline_versions", "shop._tideline_peer_tombstones", "tideline._tideline_peer_status",
                "shop._tideline_state", "shop._tideline_deletes", "shop._tidelineanything")) {
            assertThat(ANY.problem(Namespace.parse(ns))).as(ns).isPresent();
        }
        assertThat(ANY.problem(Namespace.parse("admin.users"))).get().asString().contains("MongoDB's own");
        assertThat(ANY.problem(Namespace.parse("shop.system.views"))).get().asString().contains("system collection");
        assertThat(ANY.problem(Namespace.parse("shop._tideline_versions"))).get().asString().contains("Tideline's own");
    }

    @Test
    void namesMongoDbRefusesAreRefusedForTheOneRecord() {
        assertThat(ANY.problem(new Namespace("sh$op", "orders"))).get().asString().contains("'$'");
        assertThat(ANY.problem(new Namespace("sh op", "orders"))).isPresent();
        assertThat(ANY.problem(new Namespace("shop", "or$ders"))).get().asString().contains("'$'");
        assertThat(ANY.problem(new Namespace("shop", "a\0b"))).get().asString().contains("NUL");
        assertThat(ANY.problem(new Namespace("x".repeat(64), "orders"))).get().asString().contains("63 bytes");
        assertThat(ANY.problem(new Namespace("shop", "c".repeat(260)))).get().asString().contains("255 bytes");
    }

    @Test
    void ordinaryNamespacesPassAndAnAllowListNarrowsThem() {
        for (String ns : List.of("shop.orders", "shop.orders.archive", "administration.x", "localdb.y", "shop.systems", "shop.tideline")) {
            assertThat(ANY.problem(Namespace.parse(ns))).as(ns).isEmpty();
        }
        DestinationPolicy allow = new DestinationPolicy(List.of("shop_replica", "archive"));
        assertThat(allow.problem(Namespace.parse("shop_replica.orders"))).isEmpty();
        assertThat(allow.problem(Namespace.parse("shop.orders"))).get().asString().contains("not in database.allow");
        assertThat(allow.problem(Namespace.parse("admin.orders"))).get().asString().contains("MongoDB's own");
        assertThat(allow.problem(Namespace.parse("archive.system.profile"))).get().asString().contains("system");
    }
}
