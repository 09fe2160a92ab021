package dev.tideline.standin;

import java.util.List;
import de.bwaldvogel.mongo.bson.Document;

/**
 * {@code connectionStatus}, as a MongoDB server without access control answers it
 * (https://www.mongodb.com/docs/manual/reference/command/connectionStatus/): no authenticated user, no
 * role, and with {@code showPrivileges: true} no privilege. Connectors validate their user's privileges
 * with it; with no user there is nothing to check, as on such a server.
 */
public final class ConnectionStatus {
    private ConnectionStatus() {
    }

    public static Document reply(Document command) {
        Document authInfo = new Document("authenticatedUsers", List.of()).append("authenticatedUserRoles", List.of());
        if (Boolean.TRUE.equals(command.get("showPrivileges"))) {
            authInfo.append("authenticatedUserPrivileges", List.of());
        }
        return new Document("authInfo", authInfo).append("ok", 1.0);
    }
}
