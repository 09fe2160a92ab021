package dev.tideline.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * The table as a PNG: one panel per metric, a bar per contender scaled to the panel's largest value,
 * the figure written next to each bar. Plain Java2D, headless.
 */
final class ResultChart {
    private static final int WIDTH = 1100;
    private static final int LABEL_WIDTH = 90;
    private static final int BAR_HEIGHT = 16;
    private static final int PANEL_TITLE = 22;
    private static final int PANEL_GAP = 12;
    private static final Map<Contender, Color> COLORS = Map.of(
            Contender.RAW, new Color(150, 150, 150),
            Contender.TIDELINE, new Color(31, 119, 180),
            Contender.OFFICIAL, new Color(255, 127, 14));

    private ResultChart() {
    }

    static void write(List<ResultTable.Row> rows, String title, String subtitle, Path file) {
        int height = 70;
        for (ResultTable.Row row : rows) {
            height += panelHeight(row);
        }
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            g.drawString(title, 12, 24);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.drawString(subtitle, 12, 44);
            int y = 70;
            for (ResultTable.Row row : rows) {
                drawPanel(g, row, y);
                y += panelHeight(row);
            }
        } finally {
            g.dispose();
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            ImageIO.write(image, "png", file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static int bars(ResultTable.Row row) {
        int n = 0;
        for (Contender c : Contender.values()) {
            if (row.median(c) != null || row.failures().containsKey(c)) {
                n++;
            }
        }
        return n;
    }

    private static int panelHeight(ResultTable.Row row) {
        return PANEL_TITLE + bars(row) * (BAR_HEIGHT + 4) + PANEL_GAP;
    }

    private static void drawPanel(Graphics2D g, ResultTable.Row row, int top) {
        Metric m = row.metric();
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        String ratio = row.ratio(Contender.OFFICIAL) == null ? "" : "   Tideline/official " + ResultTable.ratio(row.ratio(Contender.OFFICIAL));
        ratio += row.ratio(Contender.RAW) == null ? "" : "   Tideline/raw " + ResultTable.ratio(row.ratio(Contender.RAW));
        g.drawString(m.label() + " (" + m.unit() + (m.higherIsBetter() ? ", higher is better" : ", lower is better") + ")" + ratio,
                12, top + 15);
        double max = 0;
        for (Contender c : Contender.values()) {
            if (row.median(c) != null) {
                max = Math.max(max, row.median(c));
            }
        }
        int barSpace = WIDTH - LABEL_WIDTH - 120;
        int y = top + PANEL_TITLE;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (Contender c : Contender.values()) {
            Double value = row.median(c);
            if (value == null && !row.failures().containsKey(c)) {
                continue;
            }
            g.setColor(Color.DARK_GRAY);
            g.drawString(c.label(), 12, y + BAR_HEIGHT - 3);
            if (value == null) {
                g.setColor(new Color(200, 0, 0));
                g.drawString("FAILED (see the table)", LABEL_WIDTH, y + BAR_HEIGHT - 3);
            } else {
                int length = max <= 0 ? 0 : (int) Math.round(barSpace * value / max);
                g.setColor(COLORS.get(c));
                g.fillRect(LABEL_WIDTH, y, Math.max(length, 1), BAR_HEIGHT);
                g.setColor(Color.BLACK);
                g.drawString(ResultTable.number(value), LABEL_WIDTH + length + 6, y + BAR_HEIGHT - 3);
            }
            y += BAR_HEIGHT + 4;
        }
        g.setColor(new Color(220, 220, 220));
        g.setStroke(new BasicStroke(1));
        g.drawLine(12, top + panelHeight(row) - PANEL_GAP / 2, WIDTH - 12, top + panelHeight(row) - PANEL_GAP / 2);
    }
}
