package toolgate

import (
	"fmt"
	"slices"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// Checker decides calls. [Policy] and [Engine] implement it, and so do the
// gate's combination of a parent's and a sub-agent's checkers and the
// decision service's client.
type Checker interface {
	Decide(c Call) Decision
}

// Policy is a compiled configuration: layers of rules with their settings,
// ready to decide calls. It is immutable and safe for concurrent use.
type Policy struct {
	layers []Layer // sorted, highest priority first
	opts   Options

	settings        Settings
	defaultOutcome  Outcome
	defaultReadOnly Outcome
	precedence      Precedence
	mode            Mode
	enabled         bool

	static *ruleSet
	// shellPats holds the shell patterns of the layers' rules while they
	// compile (see precompileShell); nil after.
	shellPats map[string]compiledPattern
	session   *ruleSet // may be nil

	additionalDirs []string
	protection     *pathmatch.Protection
	tools          map[string]toolEntry
	known          map[string]knownTool // every catalog name: its entry and lowercased name
	foldNames      map[string][]string  // lowercased known name → the known names that fold to it
	toolGlobs      []toolOverride
	rewrites       []*compiledRewrite
	agents         map[string]*agentEntry
	disabledModes  map[ModeName]bool
	revision       string
	managedOnly    bool
}

// Revision identifies the loaded configuration: a hash of every layer.
func (p *Policy) Revision() string { return p.revision }

// Settings returns the scalar settings in force and the layer each comes
// from, as the engine reads them: a command line showing them (explain)
// needs no reading of its own.
func (p *Policy) Settings() Settings { return p.settings }

// Mode returns the configured session mode.
func (p *Policy) Mode() Mode { return p.mode }

// Layers returns the compiled layers, highest priority first.
func (p *Policy) Layers() []Layer { return append([]Layer(nil), p.layers...) }

// Precedence returns the precedence in force.
func (p *Policy) Precedence() Precedence { return p.precedence }

// CheckMode reports an error, naming the managed file, when a managed layer
// disables mode m: a call in that mode is then denied as invalid. A command
// line checks its --mode with it before deciding anything.
func (p *Policy) CheckMode(m ModeName) error {
	if !p.disabledModes[m] {
		return nil
	}
	file := ""
	for _, l := range p.layers {
		if l.Source == SourceManaged && slices.Contains(l.DisableModes, m) {
			file = l.File
			break
		}
	}
	return fmt.Errorf("mode %s is disabled by the managed configuration (%s)", m, file)
}
