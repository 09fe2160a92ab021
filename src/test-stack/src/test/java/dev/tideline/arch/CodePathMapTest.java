package dev.tideline.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The map of the record paths in docs/testing.md ("The sink path", "The source path") names classes that exist in
 * the main sources, and on the sink path each class is reached from one before it (its code names it), so that the
 * map stays true when the code moves.
 */
class CodePathMapTest {
    private static final Path DOC = Path.of("docs/testing.md");
    /** a numbered item that starts with a class name in backquotes */
    private static final Pattern STEP = Pattern.compile("^\\d+\\.\\s+`([A-Z]\\w*)`");

    @Test
    void theSinkPathNamesClassesEachReachedFromAnEarlierOne() {
        List<String> path = steps("### The sink path");
        assertThat(path).as("the sink path in " + DOC).hasSizeGreaterThanOrEqualTo(5);
        for (int i = 0; i < path.size(); i++) {
            String name = path.get(i);
            mainSource(name); // it exists
            if (i > 0) {
                List<String> earlier = path.subList(0, i);
                assertThat(earlier.stream().anyMatch(e -> names(mainSource(e), name)))
                        .as(name + " (step " + (i + 1) + " of the sink path) is named by none of " + earlier).isTrue();
            }
        }
    }

    @Test
    void theSourcePathNamesClassesThatExist() {
        List<String> path = steps("### The source path");
        assertThat(path).as("the source path in " + DOC).hasSizeGreaterThanOrEqualTo(5);
        path.forEach(CodePathMapTest::mainSource);
    }

    @Test
    void theReferenceCheckSeesACodeMentionAndIgnoresAComment() {
        assertThat(names("class A { B b; }", "B")).isTrue();
        assertThat(names("class A { BB b; } // B", "B")).isFalse();
        assertThat(names("class A { /** {@link B} */ String s = \"B\"; }", "B")).isFalse();
    }

    /** The class names of the numbered list under {@code heading}, up to the next heading. */
    private static List<String> steps(String heading) {
        List<String> lines;
        try {
            lines = Files.readAllLines(DOC, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = lines.indexOf(heading);
        assertThat(start).as("'" + heading + "' in " + DOC).isNotNegative();
        List<String> names = new ArrayList<>();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("#")) {
                break;
            }
            Matcher m = STEP.matcher(line);
            if (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** The source of the one main class of that simple name in any module. */
    private static String mainSource(String simpleName) {
        List<Path> found;
        try (Stream<Path> modules = Files.list(Path.of("src"))) {
            found = new ArrayList<>();
            for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    files.filter(p -> p.getFileName().toString().equals(simpleName + ".java")).forEach(found::add);
                }
            }
            assertThat(found).as(simpleName + " in src/*/src/main/java").hasSize(1);
            return Files.readString(found.get(0), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the code (not a comment or a string) names {@code simpleName}. */
    private static boolean names(String source, String simpleName) {
        return Pattern.compile("\\b" + simpleName + "\\b").matcher(SourceImports.codeOnly(source)).find();
    }
}
