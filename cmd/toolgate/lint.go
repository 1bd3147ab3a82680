package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/rule"
)

const lintUsage = `Usage:

	toolgate lint [--config [SOURCE=]FILE]... [--claude] [--cwd DIR] [--home DIR] [--json]

Lint reports every problem a policy can have without being malformed. Each
finding has a file:line:col, a severity and a stable code:

	shadowed-by-deny        warning  an allow or ask rule that a deny rule always beats
	shadowed-by-precedence  warning  an ask rule that a broader allow rule beats
	                                 (deny-allow-ask), or an allow rule that a broader
	                                 ask rule beats (deny-ask-allow)
	allow-approves-nothing  warning  an allow rule that can never allow anything: a tool
	                                 glob in a Claude settings file that does not follow
	                                 mcp__<server>__, or a bare specifier for a tool
	                                 without a primary field (an MCP tool)
	broad-allow-glob        warning  an allow rule whose tool glob is very broad (*, mcp__*, B*)
	unknown-tool            error    a rule naming a tool the catalog does not know that
	                                 looks like a misspelt known tool ("did you mean");
	                        warning  any other unknown tool (declare it under tools)
	param-on-shell-field    error    a deny or ask rule on a shell tool written like a
	                                 parameter rule (Bash(cmd:rm *)): it is a command
	                                 pattern and matches only a command named "cmd:rm"
	                                 (a warning for allow rules)
	path-never-matches      error    a deny or ask path rule that can never match (a URL or
	                                 domain: in a Read or Edit rule, a trailing :*); a
	                                 warning for allow
	duplicate-rule          warning  the same rule twice in one list
	claude-spacing          warning  spaces inside the parentheses or before :* that Claude
	                                 Code keeps: a padded prefix or exact shell allow rule
	                                 approves nothing; a deny or ask rule matches nothing in
	                                 Claude itself (toolgate also matches its trimmed reading)
	claude-escape           warning  a deny or ask rule whose reading with Claude's \( \)
	                                 escapes removed is no command a shell can parse
	                                 (toolgate matches it as written)
	allow-approves-nothing  warning  also: an allow rule whose command cannot be analysed,
	                                 assigns a variable that is not known to be safe
	                                 (FOO=1 make), or is a padded or escaped shell rule
	                                 Claude reads as no command; a prefix or wildcard
	                                 PowerShell allow rule (PowerShell is never parsed)
	allow-exact-only        warning  a prefix allow rule for an interpreter or shell running
	                                 a script, a module or inline code (Bash(python3:*)),
	                                 which only exact rules approve
	secret-needs-path-rule  warning  an allow rule naming a secret file in a command
	                                 (Bash(cat .env)): only a path rule approves the read
	claude-star-prefix      warning  a shell rule in a Claude settings file with a * before a
	                                 trailing :* (Bash(git -C * show:*)): Claude Code reads
	                                 that * literally, toolgate as a wildcard
	claude-file-tool        warning  Write(path), NotebookEdit(path), MultiEdit(path) or
	                                 Glob(path) in a Claude settings file: Claude Code never
	                                 matches them (only Edit and Read path rules); toolgate
	                                 reads them as Edit(path) / Read(path)
	claude-skipped          warning  a deny or ask rule Claude Code skips when it loads a
	                                 settings file (an mcp__ rule with parentheses); toolgate
	                                 enforces it
	control-character       error    a rule holding a control character (a JSON escape such
	                                 as \b where a backslash was meant); a warning for allow
	untrusted-allow         info     an allow rule of an untrusted project file, ignored
	                                 until the project is trusted (it is linted anyway)

Load warnings (unknown keys, ignored untrusted rules) are printed to standard
error as usual. The files' inline examples are checked as check does: a
failing example in a trusted file is a configuration error.

Exit status: 0 when there is no error-severity finding; 1 when there is; 2 on
a usage or configuration error (a failing inline example included).

Flags:
`

// finding is one lint result.
type finding struct {
	Pos      toolgate.Position `json:"pos"`
	Severity string            `json:"severity"`
	Code     string            `json:"code"`
	Message  string            `json:"message"`
}

func (f finding) String() string {
	p := f.Pos.String()
	if p == "" {
		p = "(no file)"
	}
	return fmt.Sprintf("%s: %s[%s]: %s", p, f.Severity, f.Code, f.Message)
}

func (c *cli) lint(args []string) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var pf policyFlags
	pf.register(fs)
	asJSON := fs.Bool("json", false, "print the findings as JSON Lines")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), lintUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("lint: unexpected argument %q (name files with --config)", fs.Arg(0))
		return exitUsage
	}
	ld, code := c.load(&pf, true)
	if ld == nil {
		return code
	}
	fds := findings(toolgate.Lint(ld.cfg.Layers()))
	fds = append(fds, lintUntrusted(ld.set.Files)...)
	sortFindings(fds)
	writeFindings(c.stdout, fds, *asJSON)
	for _, f := range fds {
		if f.Severity == "error" {
			return exitFailure
		}
	}
	return exitOK
}

func writeFindings(w io.Writer, fds []finding, asJSON bool) {
	for _, f := range fds {
		if asJSON {
			b, _ := json.Marshal(f)
			fmt.Fprintf(w, "%s\n", b)
		} else {
			fmt.Fprintln(w, f)
		}
	}
}

// findings converts the library's diagnostics to lint findings.
func findings(ds toolgate.Diagnostics) []finding {
	out := make([]finding, 0, len(ds))
	for _, d := range ds {
		out = append(out, finding{Pos: d.Pos, Severity: d.Severity.String(), Code: d.Code, Message: d.Message})
	}
	return out
}

// sortFindings orders findings by position.
func sortFindings(fds []finding) {
	sort.SliceStable(fds, func(i, j int) bool {
		a, b := fds[i].Pos, fds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// lintUntrusted lints the allow rules that untrusted project and local
// files hold and the loader ignored: they are read again as if trusted,
// each is reported as ignored, and each is linted like any allow rule, so
// that the file is ready when the project is trusted.
func lintUntrusted(files []*config.File) []finding {
	var out []finding
	for _, f := range files {
		if f.Trusted {
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			continue
		}
		full, _ := config.Parse(f.Path, data, f.Source, true)
		layers := make([]toolgate.Layer, len(full.Layers))
		for i, l := range full.Layers {
			l.Deny, l.Ask = nil, nil // linted with the loaded configuration
			layers[i] = l
			for _, s := range l.Allow {
				if r, err := rule.Parse(s.Text); err == nil {
					out = append(out, finding{Pos: s.Pos, Severity: "info", Code: "untrusted-allow",
						Message: fmt.Sprintf("allow rule %s is ignored: %s is not trusted (toolgate trust makes it count); linted anyway", r.Text, f.Path)})
				}
			}
		}
		out = append(out, findings(toolgate.Lint(layers))...)
	}
	return out
}
