package dev.tideline.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and the Markdown pages of docs/ and config/ points at a file that
 * exists, and every {@code #anchor} at a heading (or an explicit anchor) of that page, as GitHub renders
 * them. External links (http, mailto) are not fetched: CI has no internet.
 */
class DocLinksTest {
    /** {@code [text](target)} and {@code ![alt](target)}, target without spaces; an optional title is ignored. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : links(page)) {
                check(page, target).ifPresent(broken::add);
            }
        }
        assertThat(broken).as("broken links (page: target)").isEmpty();
    }

    @Test
    void theCheckerSeesABrokenLinkAndABrokenAnchor() throws IOException {
        Path dir = Files.createTempDirectory("doclinks");
        Path page = dir.resolve("page.md");
        Files.writeString(page, "# Title\n\n## A section\n[ok](#a-section) [bad](#missing) [gone](nowhere.md)\n"
                + "```\n[in code](ignored.md)\n```\n", StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        for (String target : links(page)) {
            check(page, target).ifPresent(found::add);
        }
        assertThat(found).hasSize(2).anyMatch(s -> s.contains("#missing")).anyMatch(s -> s.contains("nowhere.md"));
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(Path.of("README.md"));
        for (String dir : List.of("docs", "config")) {
            try (Stream<Path> files = Files.walk(Path.of(dir))) {
                files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    /** Link targets outside fenced code blocks and inline code. */
    private static List<String> links(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        boolean inFence = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private static java.util.Optional<String> check(Path page, String target) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return java.util.Optional.empty(); // http:, https:, mailto:
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return java.util.Optional.of(page + ": " + target + " (no such file)");
        }
        if (anchor != null && !anchor.isEmpty() && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
            return java.util.Optional.of(page + ": " + target + " (no such heading in " + resolved.getFileName() + ")");
        }
        return java.util.Optional.empty();
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
    static Set<String> anchors(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> anchors = new HashSet<>();
        boolean inFence = false;
        for (String line : lines) {
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher h = HEADING.matcher(line);
            if (inFence || !h.matches()) {
                continue;
            }
            String slug = h.group(1).replaceAll("`", "").toLowerCase(Locale.ROOT)
                    .replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1")
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            String unique = slug;
            for (int n = 1; !anchors.add(unique); n++) {
                unique = slug + "-" + n;
            }
        }
        return anchors;
    }
}
