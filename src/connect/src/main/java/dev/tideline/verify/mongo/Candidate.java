package dev.tideline.verify.mongo;

import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Observation;
import org.bson.BsonValue;

/**
 * An id that differed at some look and waits for a re-check.
 *
 * @param collection  the index of its collection in the run
 * @param seenAs      how it differed at the last look
 * @param observation the last look, or null when it gave no fingerprints to compare with (server hashing)
 */
record Candidate(int collection, BsonValue id, FindingKind seenAs, Observation observation, long observedAtMs) {
}
