package dev.tideline.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromQueryTest {
    private static final List<Scrape> SCRAPES = List.of(
            Scrape.parse(0, """
                    c_total{connector="a",collection="x",task="0"} 10.0
                    c_total{connector="a",collection="y",task="0"} 5.0
                    g{connector="a",collection="x",task="0"} 2.0
                    g{connector="b",collection="x",task="0"} 7.0
                    h{kind="sink-task",connector="a",state="ok"} 1.0
                    """),
            Scrape.parse(10_000, """
                    # HELP c_total a counter
                    c_total{connector="a",collection="x",task="0"} 30.0
                    c_total{connector="a",collection="y",task="0"} 5.0
                    g{connector="a",collection="x",task="0"} 4.0
                    g{connector="b",collection="x",task="0"} 8.0
                    h{kind="sink-task",connector="a",state="down"} 1.0
                    """));

    private static Map<Map<String, String>, Double> at(String query, int index) {
        return new PromQuery(15_000).parse(query).at(SCRAPES, index);
    }

    @Test
    void rateIsTheIncreasePerSecondOverTheWindow() {
        assertThat(at("sum by (connector) (rate(c_total{connector=~\"$connector\"}[$__rate_interval]))", 1))
                .containsExactly(Map.entry(Map.of("connector", "a"), 2.0));
        assertThat(at("rate(c_total[15s])", 0)).as("one scrape: no rate yet").isEmpty();
    }

    @Test
    void aggregatesMatchersAndDivision() {
        assertThat(at("max by (collection) (g)", 1)).containsExactly(Map.entry(Map.of("collection", "x"), 8.0));
        assertThat(at("g{connector=\"a\"} / c_total{connector=\"a\"}", 1)).containsExactly(
                Map.entry(Map.of("connector", "a", "collection", "x", "task", "0"), 4.0 / 30));
        assertThat(at("max by (connector, state) (h{state!=\"ok\"})", 0)).isEmpty();
        assertThat(at("max by (connector, state) (h{state!=\"ok\"})", 1)).containsOnlyKeys(Map.of("connector", "a", "state", "down"));
    }

    @Test
    void whatItCannotDrawIsRefused() {
        assertThatThrownBy(() -> new PromQuery(15_000).parse("histogram_quantile(0.9, x)")).hasMessageContaining("not in the PromQL subset");
    }

    @Test
    void everyDashboardQueryIsInTheSubset() {
        assertThat(PanelPage.evaluate(SCRAPES, 15_000)).hasSizeGreaterThanOrEqualTo(8);
    }
}
