package toolgate

// Exported for the external tests only.

// RuleReadings is how the engine reads a rule beyond its text, with the
// built-in catalog (lint's view of one rule).
func RuleReadings(text string, e Effect) []ReadingNote { return ruleReadingsBuiltin(text, e) }

// ReadingNote is readingNote, for the tests.
type ReadingNote = readingNote
