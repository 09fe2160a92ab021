package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.Namespace;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TaskAssignerTest {

    private static List<Namespace> collections(int n) {
        return IntStream.range(0, n).mapToObj(i -> new Namespace("db" + (i % 3), "c" + i)).toList();
    }

    @ParameterizedTest
    @CsvSource({"1,1", "1,5", "2,4", "3,10", "4,3", "7,7", "5,23", "10,1", "3,0"})
    void everyCollectionOnExactlyOneTaskBalanced(int maxTasks, int n) {
        List<Namespace> input = collections(n);
        List<List<Namespace>> groups = TaskAssigner.assign(input, maxTasks);

        assertThat(groups).hasSize(Math.min(maxTasks, n));
        List<Namespace> all = new ArrayList<>();
        groups.forEach(all::addAll);
        assertThat(all).containsExactlyInAnyOrderElementsOf(input);
        if (!groups.isEmpty()) {
            int min = groups.stream().mapToInt(List::size).min().orElseThrow();
            int max = groups.stream().mapToInt(List::size).max().orElseThrow();
            assertThat(max - min).isLessThanOrEqualTo(1);
            assertThat(min).isGreaterThan(0);
        }
    }

    @Test
    void deterministicInAnyInputOrder() {
        List<Namespace> input = new ArrayList<>(collections(17));
        List<List<Namespace>> expected = TaskAssigner.assign(input, 4);
        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(input, random);
            assertThat(TaskAssigner.assign(input, 4)).isEqualTo(expected);
        }
    }

    @Test
    void twoTasksFourCollections() {
        List<Namespace> input = List.of(new Namespace("shop", "orders"), new Namespace("shop", "carts"),
                new Namespace("crm", "people"), new Namespace("shop", "items"));
        List<List<Namespace>> groups = TaskAssigner.assign(input, 2);
        assertThat(groups).hasSize(2);
        assertThat(groups.get(0)).hasSize(2);
        assertThat(groups.get(1)).hasSize(2);
        // sorted by full name: crm.people, shop.carts, shop.items, shop.orders -> round robin
        assertThat(groups.get(0)).containsExactly(new Namespace("crm", "people"), new Namespace("shop", "items"));
        assertThat(groups.get(1)).containsExactly(new Namespace("shop", "carts"), new Namespace("shop", "orders"));
    }

    @Test
    void rejectsZeroTasks() {
        assertThatThrownBy(() -> TaskAssigner.assign(collections(2), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxTasks");
    }
}
