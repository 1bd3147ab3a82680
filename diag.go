package toolgate

import (
	"fmt"
	"sort"
	"strings"
)

// Severity says whether a diagnostic stops a configuration from loading.
type Severity uint8

const (
	// SeverityError stops the configuration from loading.
	SeverityError Severity = iota
	// SeverityWarning is reported but does not stop loading.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a configuration, with its position.
type Diagnostic struct {
	Pos      Position `json:"pos"`
	Severity Severity `json:"-"`
	// Code is a stable, machine-readable identifier such as "rule-syntax".
	Code    string `json:"code"`
	Message string `json:"message"`
}

// String renders "file:line:col: message" (or "warning: ..." for warnings).
func (d Diagnostic) String() string {
	var b strings.Builder
	if p := d.Pos.String(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	if d.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// Diagnostics is a list of problems. Its Err method returns nil when it holds
// no errors (warnings alone do not fail).
type Diagnostics []Diagnostic

// Error renders every diagnostic, one per line.
func (ds Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Err returns ds as an error when it holds at least one error, else nil.
func (ds Diagnostics) Err() error {
	if ds.HasErrors() {
		return ds
	}
	return nil
}

// Sort orders diagnostics by file, line and column, keeping the order of
// diagnostics at the same position.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Errorf appends an error diagnostic.
func (ds *Diagnostics) Errorf(pos Position, code, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Pos: pos, Severity: SeverityError, Code: code, Message: fmt.Sprintf(format, args...)})
}

// Warnf appends a warning diagnostic.
func (ds *Diagnostics) Warnf(pos Position, code, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Pos: pos, Severity: SeverityWarning, Code: code, Message: fmt.Sprintf(format, args...)})
}
