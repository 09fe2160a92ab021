package dev.tideline.peer;

import java.util.Collection;
import java.util.Set;

/**
 * Which tenants a link carries: the documents whose tenant (the source's {@code tenant.field}, carried in the
 * {@code tl.tenant} header) is one of a configured set; every document when the set is empty. A delete carries
 * no document, hence no tenant: it is always carried (on a document this cluster does not hold it only keeps a
 * tombstone), so a document of a carried tenant is never left behind when its origin deletes it.
 */
public final class TenantScope {
    private static final TenantScope ALL = new TenantScope(Set.of());

    private final Set<String> tenants;

    private TenantScope(Set<String> tenants) {
        this.tenants = tenants;
    }

    public static TenantScope of(Collection<String> tenants) {
        return tenants.isEmpty() ? ALL : new TenantScope(Set.copyOf(tenants));
    }

    /** @param tenant the record's tenant, null when the document has none */
    public boolean carries(String tenant, boolean delete) {
        return tenants.isEmpty() || delete || tenant != null && tenants.contains(tenant);
    }

    public boolean all() {
        return tenants.isEmpty();
    }

    @Override
    public String toString() {
        return tenants.isEmpty() ? "all tenants" : "tenants " + tenants;
    }
}
