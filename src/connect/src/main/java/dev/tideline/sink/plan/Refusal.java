package dev.tideline.sink.plan;

import dev.tideline.sink.route.RoutedChange;

/** A change the plan cannot apply, and why (for the dead letter queue). */
public record Refusal(RoutedChange change, String reason) {
}
