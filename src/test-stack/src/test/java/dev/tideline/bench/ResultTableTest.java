package dev.tideline.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {
    private static final Metric DRAIN = new Metric("drain", "events/s", true);
    private static final Metric LATENCY = new Metric("p99", "ms", false);

    @Test
    void rowsHoldMediansAndTidelineRatios() {
        ResultTable table = new ResultTable();
        for (double v : new double[] {30_000, 10_000, 20_000}) {
            table.add(DRAIN, Contender.RAW, v); // median 20,000
        }
        for (double v : new double[] {15_000, 16_000, 90_000}) {
            table.add(DRAIN, Contender.TIDELINE, v); // median 16,000: the outlier does not move it
        }
        for (double v : new double[] {8_000, 7_000, 9_000}) {
            table.add(DRAIN, Contender.OFFICIAL, v); // median 8,000
        }
        ResultTable.Row row = table.rows().get(0);
        assertThat(row.median(Contender.TIDELINE)).isEqualTo(16_000.0);
        assertThat(row.ratio(Contender.OFFICIAL)).isEqualTo(2.0);
        assertThat(row.ratio(Contender.RAW)).isEqualTo(0.8);
        assertThat(row.runs()).containsEntry(Contender.TIDELINE, 3);
    }

    @Test
    void missingFiguresGiveNoRatioAndFailuresAreShownWithTheirReason() {
        ResultTable table = new ResultTable();
        table.add(DRAIN, Contender.TIDELINE, 100);
        table.fail(DRAIN, Contender.OFFICIAL, "aggregate reply above 48 MB");
        table.add(LATENCY, Contender.TIDELINE, 12.5);
        List<ResultTable.Row> rows = table.rows();
        assertThat(rows).extracting(r -> r.metric().label()).containsExactly("drain", "p99");
        assertThat(rows.get(0).ratio(Contender.OFFICIAL)).isNull();
        assertThat(rows.get(0).ratio(Contender.RAW)).isNull();
        String text = table.text();
        assertThat(text).contains("FAILED").contains("official, drain: aggregate reply above 48 MB");
        assertThat(text).contains("ms (lower is better)");
        String markdown = table.markdown();
        assertThat(markdown).startsWith("|metric|unit|raw|Tideline|official|Tideline/official|Tideline/raw|runs|\n");
        assertThat(markdown).contains("|drain|events/s||100|FAILED|||Tideline:1|");
        assertThat(table.tsv().lines()).hasSize(3).allMatch(l -> l.split("\t", -1).length == 8);
    }

    @Test
    void numbersKeepThreeSignificantFiguresWithoutExponents() {
        assertThat(ResultTable.number(31_512.4)).isEqualTo("31512");
        assertThat(ResultTable.number(12.345)).isEqualTo("12.3");
        assertThat(ResultTable.number(1.234)).isEqualTo("1.23");
        assertThat(ResultTable.number(0.04213)).isEqualTo("0.0421");
        assertThat(ResultTable.ratio(0.8)).isEqualTo("0.80");
    }

    @Test
    void notANumberIsRefused() {
        assertThatThrownBy(() -> new ResultTable().add(DRAIN, Contender.RAW, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drain");
    }
}
