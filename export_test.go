package toolgate

import "maps"

// Exported for the external tests only.

// RuleReadings is how the engine reads a rule beyond its text, with the
// built-in catalog (lint's view of one rule).
func RuleReadings(text string, e Effect) []ReadingNote { return ruleReadingsBuiltin(text, e) }

// ReadingNote is readingNote, for the tests.
type ReadingNote = readingNote

// The text readings of the enumerations, as functions for table tests.
var (
	ParseSource     = parseSource
	ParseOutcome    = parseOutcome
	ParsePrecedence = parsePrecedence
	ParseMode       = parseMode
	ParseKind       = parseKind
	ParseEffect     = parseEffect
)

// ToolEntry is a catalog entry, for the tests.
type ToolEntry = toolEntry

// BuiltinTools returns a copy of the built-in tool catalog.
func BuiltinTools() map[string]toolEntry { return maps.Clone(builtinTools) }

// ToolAliases returns a copy of Claude Code's tool-name aliases.
func ToolAliases() map[string]string { return maps.Clone(claudeAliases) }
