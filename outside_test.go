package toolgate_test

import (
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/toolgate/toolgate"
)

// Tests for the parts of issue 9 outside the shell analysis: tool names in
// every case, URLs the parsers read differently, reason parts, content
// searches of files, settings and trust, MCP servers and shell working
// directories.

// outsideCase is one call and what must come of it. kind, rule and part are
// checked when set.
type outsideCase struct {
	name   string
	tool   string
	input  string
	server string
	mode   string
	want   toolgate.Outcome
	kind   toolgate.ReasonKind
	rule   string
	part   string
}

func runOutside(t *testing.T, cfg *toolgate.Policy, cases []outsideCase) {
	t.Helper()
	for _, tc := range cases {
		call := toolgate.Call{Tool: tc.tool, Input: json.RawMessage(tc.input), Cwd: "/p", Home: "/home/u", Server: tc.server}
		if tc.mode != "" {
			m, err := toolgate.ParseMode(tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			call.Mode = &m
		}
		d := cfg.Decide(call)
		r := d.Reason()
		name := tc.name
		if name == "" {
			name = tc.tool + " " + tc.input
		}
		switch {
		case d.Outcome != tc.want:
		case tc.kind != "" && r.Kind != tc.kind:
		case tc.rule != "" && r.Rule != tc.rule:
		case tc.part != "" && r.Part != tc.part:
		default:
			continue
		}
		t.Errorf("%s:\n\tgot  %s %s %q part %q\n\twant %s %s %q part %q\n\treasons %+v", name, d.Outcome, r.Kind, r.Rule, r.Part, tc.want, tc.kind, tc.rule, tc.part, d.Reasons)
	}
}

func compileOutside(t *testing.T, opts toolgate.Options, layers ...toolgate.Layer) *toolgate.Policy {
	t.Helper()
	if opts.UserConfigDir == "" {
		opts.UserConfigDir = "/home/u/.config/toolgate"
	}
	c, err := toolgate.Compile(layers, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func outcomePtr(o toolgate.Outcome) *toolgate.Outcome { return &o }

// Deny and ask rules fold case on tool names for every tool; allow rules
// do not, and a name that only folds to a catalog name is read as a
// generic tool for allow (SPEC §1.1).
func TestToolNameCaseFolding(t *testing.T) {
	l := layer(toolgate.SourceUser,
		[]string{"Bash(ls:*)", "Read", "WebFetch(domain:docs.example.com)", "mcp__srv__get_*", "Grep", "Edit(./src/**)"},
		[]string{"Bash(rm:*)", "WebFetch(domain:evil.example)", "mcp__srv__delete_*", "Read(./.env)", "mcp__locked", "grep(./private/**)"},
		[]string{"Bash(git push:*)", "webfetch(domain:ask.example)"})
	l.DefaultReadOnly = outcomePtr(toolgate.Allow)
	cfg := compileOutside(t, toolgate.Options{}, l)
	runOutside(t, cfg, []outsideCase{
		// Attacks: the name differs only in case from a catalog name.
		{tool: "BASH", input: `{"command":"rm -rf build"}`, want: toolgate.Deny, kind: toolgate.KindRule, rule: "Bash(rm:*)"},
		{tool: "bAsH", input: `{"command":"ls; rm x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
		{tool: "RUN_SHELL_COMMAND", input: `{"command":"rm x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
		{tool: "Exec_Command", input: `{"cmd":"rm x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
		{tool: "BASH", input: `{"command":"git push -f"}`, want: toolgate.Ask, kind: toolgate.KindRule, rule: "Bash(git push:*)"},
		{tool: "webfetch", input: `{"url":"https://evil.example/"}`, want: toolgate.Deny, rule: "WebFetch(domain:evil.example)"},
		{tool: "WEBFETCH", input: `{"url":"https://ask.example/"}`, want: toolgate.Ask, rule: "webfetch(domain:ask.example)"},
		{tool: "Web_Fetch", input: `{"url":"https://evil.example/"}`, want: toolgate.Deny, rule: "WebFetch(domain:evil.example)"},
		{tool: "MCP__SRV__delete_repo", input: `{}`, want: toolgate.Deny, rule: "mcp__srv__delete_*"},
		{tool: "Mcp__Srv__Delete_Repo", input: `{}`, want: toolgate.Deny, rule: "mcp__srv__delete_*"},
		{tool: "MCP__LOCKED__anything", input: `{}`, want: toolgate.Deny, rule: "mcp__locked"},
		{tool: "READ", input: `{"file_path":".env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		{tool: "rEAD_FILE", input: `{"path":"/p/.env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		{tool: "VIEW", input: `{"file_path":".env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		{tool: "GREP", input: `{"pattern":"x","path":"private/a"}`, want: toolgate.Deny, rule: "grep(./private/**)"},
		{tool: "EDIT", input: `{"file_path":"/p/.env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		// Such a name is generic for allow: kind rules approve nothing of it,
		// it is never read-only, and acceptEdits does not cover it.
		{tool: "BASH", input: `{"command":"ls -la"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{tool: "READ", input: `{"file_path":"/p/a.go"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{tool: "view", input: `{"file_path":"/p/a.go"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{tool: "GREP", input: `{"pattern":"x"}`, want: toolgate.Ask, kind: toolgate.KindSafety}, // a content search of /p, where .env is denied
		{tool: "WebFETCH", input: `{"url":"https://docs.example.com/"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{tool: "MCP__SRV__get_issue", input: `{}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{tool: "EDIT", input: `{"file_path":"/p/src/a.go"}`, mode: "acceptEdits", want: toolgate.Ask, kind: toolgate.KindDefault},
		{tool: "READ", input: `{"file_path":"/p/a.go"}`, mode: "plan", want: toolgate.Deny, kind: toolgate.KindMode},
		// Benign look-alikes: the exact catalog names.
		{tool: "Bash", input: `{"command":"ls -la"}`, want: toolgate.Allow, rule: "Bash(ls:*)"},
		{tool: "bash", input: `{"command":"ls -la"}`, want: toolgate.Allow, rule: "Bash(ls:*)"},
		{tool: "Read", input: `{"file_path":"/p/a.go"}`, want: toolgate.Allow, rule: "Read"},
		{tool: "read", input: `{"file_path":"/p/a.go"}`, want: toolgate.Allow, rule: "Read"},
		{tool: "View", input: `{"file_path":"/p/a.go"}`, want: toolgate.Allow, rule: "Read"},
		{tool: "WebFetch", input: `{"url":"https://docs.example.com/"}`, want: toolgate.Allow},
		{tool: "mcp__srv__get_issue", input: `{}`, want: toolgate.Allow, rule: "mcp__srv__get_*"},
		{tool: "mcp__srv__delete_repo", input: `{}`, want: toolgate.Deny, rule: "mcp__srv__delete_*"},
		{tool: "Edit", input: `{"file_path":"/p/src/a.go"}`, mode: "acceptEdits", want: toolgate.Allow},
		{tool: "Bash", input: `{"command":"rm x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
	})

	// An allow rule naming the exact spelling still approves it, as a
	// generic tool.
	l2 := layer(toolgate.SourceUser, []string{"BASH"}, []string{"Bash(rm:*)"}, nil)
	runOutside(t, compileOutside(t, toolgate.Options{}, l2), []outsideCase{
		{tool: "BASH", input: `{"command":"ls"}`, want: toolgate.Allow, rule: "BASH"},
		{tool: "BASH", input: `{"command":"rm -rf x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
	})
}

// Catalog entries of the configuration fold too: exact names and globs.
func TestToolNameCaseFoldingConfigured(t *testing.T) {
	l := layer(toolgate.SourceUser, []string{"Read"}, []string{"Read(./.env)", "Bash(rm:*)"}, nil)
	kr, ks := toolgate.KindRead, toolgate.KindShell
	fpath, fscript := "path", "script"
	l.Tools = []toolgate.ToolSpec{
		{Pattern: "mcp__fs__read_*", Kind: &kr, Field: &fpath},
		{Pattern: "runner", Kind: &ks, Field: &fscript},
	}
	cfg := compileOutside(t, toolgate.Options{}, l)
	runOutside(t, cfg, []outsideCase{
		{tool: "MCP__FS__read_file", input: `{"path":"/p/.env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		{tool: "mcp__fs__READ_file", input: `{"path":"/p/.env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		{tool: "RUNNER", input: `{"script":"rm -rf x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
		{tool: "MCP__FS__read_file", input: `{"path":"/p/a.go"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		// look-alikes
		{tool: "mcp__fs__read_file", input: `{"path":"/p/a.go"}`, want: toolgate.Allow, rule: "Read"},
		{tool: "mcp__fs__read_file", input: `{"path":"/p/.env"}`, want: toolgate.Deny, rule: "Read(./.env)"},
		{tool: "runner", input: `{"script":"rm -rf x"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
	})

	// Two catalog names that fold alike but read differently: both
	// readings are decided and the stricter wins.
	ke := toolgate.KindEdit
	l3 := layer(toolgate.SourceUser, nil, []string{"Bash(rm:*)", "Edit(./locked/**)"}, nil)
	fcmd := "command"
	l3.Tools = []toolgate.ToolSpec{{Pattern: "Tool", Kind: &ks, Field: &fcmd}, {Pattern: "tool", Kind: &ke}}
	cfg3 := compileOutside(t, toolgate.Options{}, l3)
	runOutside(t, cfg3, []outsideCase{
		{tool: "TOOL", input: `{"command":"rm x","file_path":"/p/a"}`, want: toolgate.Deny, rule: "Bash(rm:*)"},
		{tool: "TOOL", input: `{"command":"ls","file_path":"/p/locked/a"}`, want: toolgate.Deny, rule: "Edit(./locked/**)"},
		{tool: "TOOL", input: `{"command":"ls","file_path":"/p/a"}`, want: toolgate.Ask},
	})
}

// MCP calls: the request's server is the server for allow; deny and ask
// rules match it and every split of the tool name (SPEC §1, §3).
func TestMCPServerField(t *testing.T) {
	l := layer(toolgate.SourceUser,
		[]string{"mcp__github__get_*", "mcp__gh__list_*"},
		[]string{"mcp__gh__delete_*", "mcp__github__drop_*", "mcp__blocked"},
		[]string{"mcp__github__create_*"})
	cfg := compileOutside(t, toolgate.Options{}, l)
	runOutside(t, cfg, []outsideCase{
		{name: "deny by the name's split", tool: "mcp__gh__delete_repo", server: "github", input: `{}`, want: toolgate.Deny, rule: "mcp__gh__delete_*"},
		{name: "deny by the named server", tool: "mcp__gh__drop_table", server: "github", input: `{}`, want: toolgate.Deny, rule: "mcp__github__drop_*"},
		{name: "deny a whole named server", tool: "mcp__x__y", server: "blocked", input: `{}`, want: toolgate.Deny, rule: "mcp__blocked"},
		{name: "deny a whole split server", tool: "mcp__blocked__y", server: "other", input: `{}`, want: toolgate.Deny, rule: "mcp__blocked"},
		{name: "ask by the named server", tool: "mcp__gh__create_issue", server: "github", input: `{}`, want: toolgate.Ask, rule: "mcp__github__create_*"},
		{name: "deny, server in another case", tool: "mcp__x__y", server: "BLOCKED", input: `{}`, want: toolgate.Deny, rule: "mcp__blocked"},
		{name: "bare tool name with a server", tool: "delete_everything", server: "blocked", input: `{}`, want: toolgate.Deny, rule: "mcp__blocked"},
		// Allow takes the named server only.
		{name: "allow by the named server", tool: "mcp__github__get_issue", server: "github", input: `{}`, want: toolgate.Allow, rule: "mcp__github__get_*"},
		{name: "allow by the named server, other prefix", tool: "mcp__gh__get_issue", server: "github", input: `{}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{name: "split server is not the named one", tool: "mcp__gh__list_repos", server: "github", input: `{}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{name: "no server named", tool: "mcp__gh__list_repos", input: `{}`, want: toolgate.Allow, rule: "mcp__gh__list_*"},
		{name: "bare tool name with its server", tool: "get_issue", server: "github", input: `{}`, want: toolgate.Allow, rule: "mcp__github__get_*"},
	})
}

// §2: every rule of the session layer decides with reason kind session.
func TestSessionReasonKind(t *testing.T) {
	s := layer(toolgate.SourceSession, []string{"Bash(make:*)", "WebFetch(domain:docs.example.com)"}, []string{"Read(./.env)", "mcp__x"}, []string{"Bash(git push:*)"})
	cfg := compileOutside(t, toolgate.Options{}, s, layer(toolgate.SourceUser, []string{"Bash(ls:*)"}, nil, nil))
	runOutside(t, cfg, []outsideCase{
		{tool: "Bash", input: `{"command":"make all"}`, want: toolgate.Allow, kind: toolgate.KindSession, rule: "Bash(make:*)"},
		{tool: "Read", input: `{"file_path":".env"}`, want: toolgate.Deny, kind: toolgate.KindSession, rule: "Read(./.env)"},
		{tool: "Bash", input: `{"command":"cat .env"}`, want: toolgate.Deny, kind: toolgate.KindSession, rule: "Read(./.env)"},
		{tool: "mcp__x__y", input: `{}`, want: toolgate.Deny, kind: toolgate.KindSession},
		{tool: "Bash", input: `{"command":"git push"}`, want: toolgate.Ask, kind: toolgate.KindSession},
		{tool: "WebFetch", input: `{"url":"https://docs.example.com/"}`, want: toolgate.Allow, kind: toolgate.KindSession},
		{tool: "Bash", input: `{"command":"ls"}`, want: toolgate.Allow, kind: toolgate.KindRule, rule: "Bash(ls:*)"},
	})
	e := toolgate.NewEngine(cfg)
	if err := e.AddSessionRule(toolgate.EffectDeny, "Bash(ls:*)"); err != nil {
		t.Fatal(err)
	}
	if d := e.Decide(bash("ls")); d.Outcome != toolgate.Deny || d.Reason().Kind != toolgate.KindSession {
		t.Fatalf("a session rule added at run time: got %s", d)
	}
}

// §2: reason.part names the reading that decided: the link or its target,
// whichever matched; the URL as given; a shell call's sub-command.
func TestReasonPart(t *testing.T) {
	links := map[string]string{"/p/docs": "/p/secret", "/p/cfg": "/home/u/.ssh", "/p/notes.txt": "/p/.env"}
	opts := toolgate.Options{ResolveSymlinks: corpusResolver(links)}
	l := layer(toolgate.SourceUser, []string{"Read(./docs/**)", "Read(./secret/**)", "WebFetch(domain:docs.example.com)"},
		[]string{"Read(./secret/deny.txt)", "Edit(./docs/locked.txt)", "WebFetch(domain:evil.example)", "Bash(rm:*)"},
		[]string{"Read(./secret/ask.txt)"})
	cfg := compileOutside(t, opts, l)
	runOutside(t, cfg, []outsideCase{
		{name: "the target matched", tool: "Read", input: `{"file_path":"/p/docs/deny.txt"}`, want: toolgate.Deny, rule: "Read(./secret/deny.txt)", part: "/p/secret/deny.txt"},
		{name: "the link matched", tool: "Edit", input: `{"file_path":"/p/docs/locked.txt"}`, want: toolgate.Deny, rule: "Edit(./docs/locked.txt)", part: "/p/docs/locked.txt"},
		{name: "ask on the target", tool: "Read", input: `{"file_path":"docs/ask.txt"}`, want: toolgate.Ask, rule: "Read(./secret/ask.txt)", part: "/p/secret/ask.txt"},
		{name: "allow needs one rule for both ends", tool: "Read", input: `{"file_path":"/p/docs/ok.txt"}`, want: toolgate.Ask, kind: toolgate.KindReadOnly, part: "/p/docs/ok.txt"},
		{name: "allow names the path", tool: "Read", input: `{"file_path":"/p/secret/ok.txt"}`, want: toolgate.Allow, rule: "Read(./secret/**)", part: "/p/secret/ok.txt"},
		{name: "protected target", tool: "Edit", input: `{"file_path":"/p/cfg/config"}`, want: toolgate.Ask, kind: toolgate.KindSafety, part: "/home/u/.ssh/config"},
		{name: "protected link", tool: "Edit", input: `{"file_path":"/p/.git/config"}`, want: toolgate.Ask, kind: toolgate.KindSafety, part: "/p/.git/config"},
		{name: "secret target", tool: "Read", input: `{"file_path":"/p/notes.txt"}`, want: toolgate.Ask, kind: toolgate.KindSafety, part: "/p/.env"},
		{name: "URL as given", tool: "WebFetch", input: `{"url":"HTTPS://EVIL.example./x"}`, want: toolgate.Deny, part: "HTTPS://EVIL.example./x"},
		{name: "allowed URL as given", tool: "WebFetch", input: `{"url":"https://Docs.Example.com/a"}`, want: toolgate.Allow, part: "https://Docs.Example.com/a"},
		{name: "shell sub-command", tool: "Bash", input: `{"command":"ls && rm -rf x"}`, want: toolgate.Deny, rule: "Bash(rm:*)", part: "rm -rf x"},
		{name: "shell path rule", tool: "Bash", input: `{"command":"echo hi; cat docs/deny.txt"}`, want: toolgate.Deny, rule: "Read(./secret/deny.txt)", part: "cat docs/deny.txt"},
	})
}

// fakeIsDir says which absolute paths are directories; a path in neither
// list is unknown (an error).
func fakeIsDir(dirs, files []string) func(string) (bool, error) {
	return func(p string) (bool, error) {
		for _, d := range dirs {
			if p == d {
				return true, nil
			}
		}
		for _, f := range files {
			if p == f {
				return false, nil
			}
		}
		return false, fs.ErrNotExist
	}
}

// §4.2: a content search of a file is a plain read of it; only a
// directory can hold denied files below it. A path of unknown kind is
// searched as a directory and read as a file.
func TestContentSearchOfFile(t *testing.T) {
	l := layer(toolgate.SourceUser, []string{"Grep", "Bash(grep:*)", "Bash(rg:*)"}, []string{"Read(**/*.key)", "Read(./private/**)"}, nil)
	l.DefaultReadOnly = outcomePtr(toolgate.Allow)
	isDir := fakeIsDir([]string{"/p", "/p/src", "/p/private"}, []string{"/p/README.md", "/p/.env", "/p/notes.txt", "/p/private/a.txt"})
	cfg := compileOutside(t, toolgate.Options{IsDir: isDir}, l)
	runOutside(t, cfg, []outsideCase{
		// Files: no directory floor; read deny and the secret check apply.
		{name: "Grep of a plain file", tool: "Grep", input: `{"pattern":"x","path":"README.md"}`, want: toolgate.Allow, rule: "Grep"},
		{name: "Grep of a secret file", tool: "Grep", input: `{"pattern":"KEY","path":".env"}`, want: toolgate.Ask, kind: toolgate.KindSafety, part: "/p/.env"},
		{name: "Grep of a denied file", tool: "Grep", input: `{"pattern":"x","path":"private/a.txt"}`, want: toolgate.Deny, rule: "Read(./private/**)"},
		{name: "grep -r of a plain file", tool: "Bash", input: `{"command":"grep -r x README.md"}`, want: toolgate.Allow, rule: "Bash(grep:*)"},
		{name: "grep -r of a secret file", tool: "Bash", input: `{"command":"grep -r KEY .env"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "rg of a secret file", tool: "Bash", input: `{"command":"rg TOKEN .env"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "grep -r of a denied file", tool: "Bash", input: `{"command":"grep -r x private/a.txt"}`, want: toolgate.Deny, rule: "Read(./private/**)"},
		// Directories: the floor, whatever the allow rules say.
		{name: "Grep of a directory", tool: "Grep", input: `{"pattern":"x","path":"src"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "grep -r of a directory", tool: "Bash", input: `{"command":"grep -r x src"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "Grep of the working directory", tool: "Grep", input: `{"pattern":"x"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		// Unknown kind: a directory (the floor) and a file (the secret check).
		{name: "Grep of an unknown path", tool: "Grep", input: `{"pattern":"x","path":"gone"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "grep -r of an unknown secret", tool: "Bash", input: `{"command":"grep -r x /p/other/.env"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
	})
	// Without IsDir every searched path is of unknown kind.
	cfg2 := compileOutside(t, toolgate.Options{}, l)
	runOutside(t, cfg2, []outsideCase{
		{name: "no IsDir: Grep of a file is searched as a directory", tool: "Grep", input: `{"pattern":"x","path":"README.md"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "no IsDir: grep -r of a secret is read", tool: "Bash", input: `{"command":"grep -r KEY .env"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
	})
	// With no read deny rules, nothing can be below a directory; a secret
	// file searched is still a read of a secret.
	l3 := layer(toolgate.SourceUser, []string{"Bash(grep:*)"}, nil, nil)
	l3.DefaultReadOnly = outcomePtr(toolgate.Allow)
	runOutside(t, compileOutside(t, toolgate.Options{}, l3), []outsideCase{
		{name: "grep -r .env under Bash(grep:*)", tool: "Bash", input: `{"command":"grep -r KEY .env"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		{name: "grep -r src", tool: "Bash", input: `{"command":"grep -r KEY src"}`, want: toolgate.Allow, rule: "Bash(grep:*)"},
	})
}

// §6.3 step 6 and §7: a secret read that no rule decided is never allowed by
// default_read_only or the default: it is asked about, or denied where the
// default it would otherwise get is deny. bypassPermissions allows it,
// dontAsk and strict deny it; an allow rule naming it allows it.
func TestSecretReadFallback(t *testing.T) {
	for _, tc := range []struct {
		def, dro toolgate.Outcome
		mode     string
		want     toolgate.Outcome
	}{
		{toolgate.Allow, toolgate.Allow, "", toolgate.Ask},
		{toolgate.Allow, 0, "", toolgate.Ask},
		{toolgate.Ask, toolgate.Allow, "", toolgate.Ask},
		{toolgate.Deny, toolgate.Allow, "", toolgate.Deny},
		{toolgate.Allow, toolgate.Deny, "", toolgate.Deny},
		{toolgate.Ask, toolgate.Deny, "", toolgate.Deny},
		{toolgate.Allow, toolgate.Allow, "bypassPermissions", toolgate.Allow},
		{toolgate.Allow, toolgate.Allow, "dontAsk", toolgate.Deny},
		{toolgate.Allow, toolgate.Allow, "strict", toolgate.Deny},
		{toolgate.Allow, toolgate.Allow, "acceptEdits", toolgate.Ask},
		{toolgate.Allow, toolgate.Allow, "auto", toolgate.Ask},
	} {
		l := layer(toolgate.SourceUser, []string{"Read(./config/*.json)", "Bash(cat:*)"}, nil, nil)
		l.Default = outcomePtr(tc.def)
		if tc.dro != 0 {
			l.DefaultReadOnly = outcomePtr(tc.dro)
		}
		cfg := compileOutside(t, toolgate.Options{}, l)
		for _, call := range []struct{ tool, input string }{
			{"Read", `{"file_path":"/p/.env"}`},
			{"Read", `{"file_path":"/p/deploy/server.key"}`},
			{"Bash", `{"command":"cat .env"}`},
		} {
			kind := toolgate.KindSafety
			if tc.mode == "bypassPermissions" || tc.mode == "strict" {
				kind = toolgate.KindMode
			}
			if tc.mode == "dontAsk" {
				kind = toolgate.KindMode
			}
			runOutside(t, cfg, []outsideCase{{name: "default " + tc.def.String() + " dro " + tc.dro.String() + " mode " + tc.mode + ": " + call.tool + " " + call.input,
				tool: call.tool, input: call.input, mode: tc.mode, want: tc.want, kind: kind}})
		}
		// Look-alikes: a non-secret read gets default_read_only; an allow
		// rule naming the secret allows it.
		dro := tc.dro
		if dro == 0 {
			dro = tc.def
		}
		want := dro
		switch tc.mode {
		case "bypassPermissions":
			want = toolgate.Allow
		case "strict":
			want = toolgate.Deny
		case "dontAsk":
			if want == toolgate.Ask {
				want = toolgate.Deny
			}
		}
		runOutside(t, cfg, []outsideCase{{name: "non-secret read, default " + tc.def.String() + " mode " + tc.mode, tool: "Read", input: `{"file_path":"/p/a.go"}`, mode: tc.mode, want: want}})
	}
	l := layer(toolgate.SourceUser, []string{"Read(./.env)"}, nil, nil)
	l.Default = outcomePtr(toolgate.Allow)
	runOutside(t, compileOutside(t, toolgate.Options{}, l), []outsideCase{
		{tool: "Read", input: `{"file_path":"/p/.env"}`, want: toolgate.Allow, rule: "Read(./.env)"},
		{tool: "Bash", input: `{"command":"cat .env"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
	})
}

// §1.1: a shell tool's working-directory field is where the command runs:
// its relative paths, its cds and the workspace test start there.
func TestShellWorkingDirectory(t *testing.T) {
	l := layer(toolgate.SourceUser, []string{"Bash(cat:*)", "Bash(ls:*)", "Bash(rm -f build.log)"}, []string{"Read(//etc/shadow)", "Read(~/.ssh/**)", "Edit(//srv/locked/**)"}, nil)
	l.DefaultReadOnly = outcomePtr(toolgate.Allow)
	l.AdditionalDirectories = []string{"/extra"}
	cfg := compileOutside(t, toolgate.Options{}, l)
	runOutside(t, cfg, []outsideCase{
		// Attacks: the relative path is read in the named directory.
		{name: "run_shell_command dir_path", tool: "run_shell_command", input: `{"command":"cat shadow","dir_path":"/etc"}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "run_shell_command directory", tool: "run_shell_command", input: `{"command":"cat shadow","directory":"/etc"}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "exec_command workdir", tool: "exec_command", input: `{"cmd":["cat","id_rsa"],"workdir":"~/.ssh"}`, want: toolgate.Deny, rule: "Read(~/.ssh/**)"},
		{name: "shell workdir", tool: "shell", input: `{"command":["cat","shadow"],"workdir":"/etc"}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "local_shell working_directory", tool: "local_shell", input: `{"action":{"command":["cat","shadow"],"working_directory":"/etc"}}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "relative workdir", tool: "exec_command", input: `{"cmd":"cat shadow","workdir":"../etc"}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "a cd starts there", tool: "exec_command", input: `{"cmd":"cd .. && cat shadow","workdir":"/etc/x"}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "a write in the named directory", tool: "exec_command", input: `{"cmd":"echo x > f","workdir":"/srv/locked"}`, want: toolgate.Deny, rule: "Edit(//srv/locked/**)"},
		{name: "folded name keeps its field", tool: "EXEC_COMMAND", input: `{"cmd":"cat shadow","workdir":"/etc"}`, want: toolgate.Deny, rule: "Read(//etc/shadow)"},
		{name: "protected path through workdir", tool: "exec_command", input: `{"cmd":"echo x > config","workdir":"/p/.git"}`, want: toolgate.Ask, kind: toolgate.KindSafety},
		// The workspace test starts there: a read-only command outside the
		// workspace is not covered by default_read_only.
		{name: "pwd outside the workspace", tool: "exec_command", input: `{"cmd":"pwd","workdir":"/etc"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		{name: "git status outside the workspace", tool: "exec_command", input: `{"cmd":"git status","workdir":"/srv"}`, want: toolgate.Ask, kind: toolgate.KindDefault},
		// Look-alikes: inside the workspace.
		{name: "pwd in a subdirectory", tool: "exec_command", input: `{"cmd":"pwd","workdir":"src"}`, want: toolgate.Allow, kind: toolgate.KindReadOnly},
		{name: "pwd in an additional directory", tool: "exec_command", input: `{"cmd":"pwd","workdir":"/extra/lib"}`, want: toolgate.Allow, kind: toolgate.KindReadOnly},
		{name: "cat in a subdirectory", tool: "run_shell_command", input: `{"command":"cat notes.txt","dir_path":"docs"}`, want: toolgate.Allow, rule: "Bash(cat:*)"},
		{name: "rm -f build.log in the workspace", tool: "exec_command", input: `{"cmd":"rm -f build.log","workdir":"/p"}`, want: toolgate.Allow, rule: "Bash(rm -f build.log)"},
		{name: "a field another tool does not have", tool: "Bash", input: `{"command":"cat shadow","workdir":"/etc"}`, want: toolgate.Allow, rule: "Bash(cat:*)"},
		// Malformed fields.
		{name: "non-string workdir", tool: "exec_command", input: `{"cmd":"ls","workdir":5}`, want: toolgate.Deny, kind: toolgate.KindInvalid},
		{name: "empty workdir", tool: "exec_command", input: `{"cmd":"ls","workdir":""}`, want: toolgate.Deny, kind: toolgate.KindInvalid},
		{name: "two different directories", tool: "run_shell_command", input: `{"command":"ls","dir_path":"/p","directory":"/etc"}`, want: toolgate.Deny, kind: toolgate.KindInvalid},
		{name: "two equal directories", tool: "run_shell_command", input: `{"command":"ls","dir_path":"/p/src","directory":"src"}`, want: toolgate.Allow, rule: "Bash(ls:*)"},
	})
}

// A case-folded apply_patch reads its patch body like apply_patch.
func TestFoldedApplyPatch(t *testing.T) {
	cfg := compileOutside(t, toolgate.Options{}, layer(toolgate.SourceUser, []string{"Edit(./src/**)"}, []string{"Edit(./locked/**)"}, nil))
	patch := `*** Begin Patch\n*** Update File: locked/a.txt\n@@\n-a\n+b\n*** End Patch\n`
	runOutside(t, cfg, []outsideCase{
		{tool: "APPLY_PATCH", input: `{"input":"` + patch + `"}`, want: toolgate.Deny, rule: "Edit(./locked/**)"},
		{tool: "Apply_Patch", input: `{"command":"` + patch + `"}`, want: toolgate.Deny, rule: "Edit(./locked/**)"},
		{tool: "apply_patch", input: `{"input":"` + patch + `"}`, want: toolgate.Deny, rule: "Edit(./locked/**)"},
	})
}

// FuzzToolNameCase checks that spelling a tool name in another case never
// makes a decision more permissive: the case-folded reading faces the same
// deny and ask rules and checks, and is never approved by a kind rule.
func FuzzToolNameCase(f *testing.F) {
	f.Add(uint8(0), "rm -rf /p/build", uint16(1))
	f.Add(uint8(1), "/p/.env", uint16(3))
	f.Add(uint8(3), "https://evil.com/", uint16(0xffff))
	f.Add(uint8(4), "x", uint16(5))
	f.Add(uint8(5), "/p/src", uint16(2))
	f.Add(uint8(0), "git push --force", uint16(7))
	deny := append([]string{"mcp__gh__delete_*", "WebFetch(domain:evil.com)", "Agent(danger)", "Edit(./locked/**)", "Bash(rm:*)"}, fuzzBase.deny...)
	cfg, err := fuzzConfig(fuzzBase.allow, deny, fuzzBase.ask)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, arg string, mask uint16) {
		call := fuzzCall(tool, arg)
		b := []byte(call.Tool)
		for i := range b {
			if mask&(1<<(i%16)) != 0 && 'a' <= b[i] && b[i] <= 'z' {
				b[i] -= 'a' - 'A'
			}
		}
		folded := call
		folded.Tool = string(b)
		if _, known := toolgate.BuiltinTools()[folded.Tool]; known {
			return // another catalog name, with its own reading
		}
		d0, d1 := cfg.Decide(call), cfg.Decide(folded)
		if severity(d1.Outcome) < severity(d0.Outcome) {
			t.Fatalf("%s %s: %s, but as %s: %s", call.Tool, call.Input, d0, folded.Tool, d1)
		}
	})
}
