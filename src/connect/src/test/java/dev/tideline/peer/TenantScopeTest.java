package dev.tideline.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TenantScopeTest {
    @Test
    void anEmptySetCarriesEveryDocument() {
        TenantScope all = TenantScope.of(List.of());
        assertThat(all.carries("acme", false)).isTrue();
        assertThat(all.carries(null, false)).isTrue();
        assertThat(all.all()).isTrue();
    }

    @Test
    void aSetCarriesOnlyWritesOfItsTenantsAndEveryDelete() {
        TenantScope scope = TenantScope.of(List.of("acme", "globex"));
        assertThat(scope.carries("acme", false)).isTrue();
        assertThat(scope.carries("globex", false)).isTrue();
        assertThat(scope.carries("initech", false)).isFalse();
        assertThat(scope.carries(null, false)).as("a document without a tenant").isFalse();
        assertThat(scope.carries(null, true)).as("a delete carries no document, hence no tenant").isTrue();
        assertThat(scope.all()).isFalse();
    }
}
