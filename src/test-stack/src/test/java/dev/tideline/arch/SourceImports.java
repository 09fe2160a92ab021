package dev.tideline.arch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What one main source file of the project names of the project's own code: every {@code dev.tideline} class its
 * code mentions by its full name (imports, static imports, wildcard imports and fully qualified names in the code),
 * with comments, string and character literals left out. Classes of the file's own package need no import and are
 * no dependency between packages, so this is all that a package check needs.
 */
record SourceImports(String module, String pkg, String className, Set<String> classes, Set<String> packages) {
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    /** a project name: lower-case segments (the package), then a class name or {@code *} */
    private static final Pattern NAME = Pattern.compile("\\bdev\\.tideline((?:\\.[a-z_][\\w]*)*)\\.([A-Z][\\w]*|\\*)");

    /** Every {@code src/<module>/src/main/java} file under {@code root}. */
    static List<SourceImports> readAll(Path root) {
        List<SourceImports> all = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root.resolve("src"))) {
            for (Path module : modules.sorted().toList()) {
                Path main = module.resolve("src/main/java");
                if (!Files.isDirectory(main)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                        all.add(of(module.getFileName().toString(), f.getFileName().toString().replace(".java", ""),
                                Files.readString(f, StandardCharsets.UTF_8)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all;
    }

    static SourceImports of(String module, String className, String source) {
        String code = codeOnly(source);
        Matcher p = PACKAGE.matcher(code);
        boolean declared = p.find();
        String pkg = declared ? p.group(1) : "";
        int body = declared ? p.end() : 0;
        Set<String> classes = new TreeSet<>();
        Set<String> packages = new TreeSet<>();
        Matcher m = NAME.matcher(code);
        m.region(body, code.length());
        while (m.find()) {
            String target = "dev.tideline" + m.group(1);
            if (target.equals(pkg)) {
                continue; // its own package
            }
            packages.add(target);
            if (!m.group(2).equals("*")) {
                classes.add(target + "." + m.group(2));
            }
        }
        return new SourceImports(module, pkg, className, classes, packages);
    }

    /** The source with comments, strings, text blocks and character literals blanked out. */
    static String codeOnly(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (s.startsWith("//", i)) {
                int end = s.indexOf('\n', i);
                i = end < 0 ? s.length() : end;
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
                out.append(' ');
            } else if (s.startsWith("\"\"\"", i)) {
                int end = s.indexOf("\"\"\"", i + 3);
                while (end > 0 && s.charAt(end - 1) == '\\') {
                    end = s.indexOf("\"\"\"", end + 1);
                }
                i = end < 0 ? s.length() : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < s.length() && s.charAt(j) != c && s.charAt(j) != '\n') {
                    j += s.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
