package mcpwrap

import (
	"strings"
	"testing"
)

const claudeIn = `{
  "mcpServers": {
    "fs": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
      "env": {"A": "1"}
    },
    "mem": {"command": "mcp-server-memory"}
  }
}
`

const codexIn = `# top comment
model = "m"

[mcp_servers.fs]
command = "npx" # runner
args = ["-y", '@modelcontextprotocol/server-filesystem', "/srv"]

[mcp_servers.fs.env]
A = "1"

[other]
x = 1
`

// replace is strings.Replace of exactly one occurrence; it fails the test
// when old is not there once.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q occurs %d times in\n%s", old, strings.Count(s, old), s)
	}
	return strings.Replace(s, old, new, 1)
}

// TestUnwrapAfterChanges wraps a file, changes the file or the state as a
// person or the client would, unwraps, and checks what comes back.
func TestUnwrapAfterChanges(t *testing.T) {
	cases := []struct {
		name      string
		client    Client
		file      string
		in        string
		change    func(t *testing.T, wrapped string) string // the file between wrap and unwrap
		state     func(t *testing.T, state string) string   // the state file between them
		want      func(t *testing.T, in string) string
		actions   []Action
		identical bool
	}{{
		name: "untouched", client: Claude, file: ".mcp.json", in: claudeIn,
		want:    func(t *testing.T, in string) string { return in },
		actions: []Action{Restored, Restored}, identical: true,
	}, {
		name: "another server added meanwhile", client: Claude, file: ".mcp.json", in: claudeIn,
		change: func(t *testing.T, w string) string {
			return replace(t, w, `  "mcpServers": {`, `  "mcpServers": {
    "new": {"command": "x"},`)
		},
		want: func(t *testing.T, in string) string {
			return replace(t, in, `  "mcpServers": {`, `  "mcpServers": {
    "new": {"command": "x"},`)
		},
		actions: []Action{Restored, Restored},
	}, {
		name: "entry edited while wrapped keeps the edit", client: Claude, file: ".mcp.json", in: claudeIn,
		change: func(t *testing.T, w string) string { return replace(t, w, `{"A": "1"}`, `{"A": "2"}`) },
		want: func(t *testing.T, in string) string {
			return replace(t, in, `{"A": "1"}`, `{"A": "2"}`)
		},
		actions: []Action{Rebuilt, Restored},
	}, {
		name: "reformatted by the client", client: Claude, file: ".claude.json", in: claudeIn,
		change: func(t *testing.T, w string) string {
			// Claude Code writes ~/.claude.json with JSON.stringify(v, null, 2).
			w = replace(t, w, `"args": ["mcp", "--upstream-name=fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv"]`,
				"\"args\": [\n        \"mcp\",\n        \"--upstream-name=fs\",\n        \"--\",\n        \"npx\",\n        \"-y\",\n        \"@modelcontextprotocol/server-filesystem\",\n        \"/srv\"\n      ]")
			return replace(t, w, `"env": {"A": "1"}`, "\"env\": {\n        \"A\": \"1\"\n      }")
		},
		want:    func(t *testing.T, in string) string { return in },
		actions: []Action{Restored, Restored}, identical: true,
	}, {
		name: "state file lost", client: Claude, file: ".mcp.json", in: claudeIn,
		state: func(t *testing.T, s string) string { return "" },
		want: func(t *testing.T, in string) string {
			// The entry without args gets an empty list: its absence
			// was recorded only in the state.
			return replace(t, in, `{"command": "mcp-server-memory"}`, `{"command": "mcp-server-memory", "args": []}`)
		},
		actions: []Action{Rebuilt, Rebuilt},
	}, {
		name: "state file altered to run something else", client: Claude, file: ".mcp.json", in: claudeIn,
		state: func(t *testing.T, s string) string {
			return replace(t, s, `"original": "{\"command\": \"mcp-server-memory\"}"`, `"original": "{\"command\": \"evil\"}"`)
		},
		want: func(t *testing.T, in string) string {
			return replace(t, in, `{"command": "mcp-server-memory"}`, `{"command": "mcp-server-memory", "args": []}`)
		},
		actions: []Action{Restored, Rebuilt},
	}, {
		name: "server renamed while wrapped", client: Claude, file: ".mcp.json", in: claudeIn,
		change: func(t *testing.T, w string) string { return replace(t, w, `"mem":`, `"memory":`) },
		want: func(t *testing.T, in string) string {
			return replace(t, in, `"mem": {"command": "mcp-server-memory"}`, `"memory": {"command": "mcp-server-memory", "args": []}`)
		},
		actions: []Action{Restored, Rebuilt},
	}, {
		name: "codex untouched", client: Codex, file: "config.toml", in: codexIn,
		want:    func(t *testing.T, in string) string { return in },
		actions: []Action{Restored}, identical: true,
	}, {
		name: "codex other table edited", client: Codex, file: "config.toml", in: codexIn,
		change:  func(t *testing.T, w string) string { return replace(t, w, "x = 1\n", "x = 2 # changed\n") },
		want:    func(t *testing.T, in string) string { return replace(t, in, "x = 1\n", "x = 2 # changed\n") },
		actions: []Action{Restored},
	}, {
		name: "codex entry edited while wrapped", client: Codex, file: "config.toml", in: codexIn,
		change: func(t *testing.T, w string) string {
			return replace(t, w, "\n\n[mcp_servers.fs.env]", "\nenabled = false\n\n[mcp_servers.fs.env]")
		},
		want: func(t *testing.T, in string) string {
			return replace(t, in, `args = ["-y", '@modelcontextprotocol/server-filesystem', "/srv"]
`, `args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]
enabled = false
`)
		},
		actions: []Action{Rebuilt},
	}, {
		name: "gemini comment added elsewhere", client: Gemini, file: "settings.json", in: claudeIn,
		change: func(t *testing.T, w string) string {
			return replace(t, w, "{\n  \"mcpServers\"", "{\n  // servers\n  \"mcpServers\"")
		},
		want: func(t *testing.T, in string) string {
			return replace(t, in, "{\n  \"mcpServers\"", "{\n  // servers\n  \"mcpServers\"")
		},
		actions: []Action{Restored, Restored},
	}}
	lost := func(t *testing.T, s string) string { return "" }
	cases = append(cases, []struct {
		name      string
		client    Client
		file      string
		in        string
		change    func(t *testing.T, wrapped string) string
		state     func(t *testing.T, state string) string
		want      func(t *testing.T, in string) string
		actions   []Action
		identical bool
	}{{
		name: "URL entry, state file lost", client: Claude, file: ".mcp.json",
		in:    `{"mcpServers": {"r": {"url": "https://x/mcp", "timeout": 5, "type": "http", "headers": {"B": "2", "A": "1"}}}}`,
		state: lost,
		want: func(t *testing.T, in string) string {
			// The type keeps its place; the headers come after the address.
			return `{"mcpServers": {"r": {"url": "https://x/mcp", "headers": {"A": "1", "B": "2"}, "timeout": 5, "type": "http"}}}`
		},
		actions: []Action{Rebuilt},
	}, {
		name: "Gemini URL entry, state file lost", client: Gemini, file: "settings.json",
		in:    "{\"mcpServers\": {\"r\": {\n  \"httpUrl\": \"https://x/mcp\", // c\n  \"trust\": true\n}}}",
		state: lost,
		want: func(t *testing.T, in string) string {
			return "{\"mcpServers\": {\"r\": {\n  \"httpUrl\": \"https://x/mcp\",\n  \"trust\": true\n}}}"
		},
		actions: []Action{Rebuilt},
	}, {
		name: "Codex URL entry, state file lost", client: Codex, file: "config.toml",
		in:    "[mcp_servers.r]\nenabled = true\nurl = \"https://x/mcp\" # c\n\n[x]\ny = 1\n",
		state: lost,
		want: func(t *testing.T, in string) string {
			// The comment went with the args line it was moved to.
			return "[mcp_servers.r]\nenabled = true\nurl = \"https://x/mcp\"\n\n[x]\ny = 1\n"
		},
		actions: []Action{Rebuilt},
	}, {
		name: "Codex URL entry untouched", client: Codex, file: "config.toml",
		in:      "[mcp_servers.r]\nurl = \"https://x/mcp\" # c\n",
		want:    func(t *testing.T, in string) string { return in },
		actions: []Action{Restored}, identical: true,
	}}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := "/home/u/p/" + tc.file
			w, err := WrapText(tc.client, file, []byte(tc.in), nil, &Options{Command: testCommand, HeadersInArgs: true})
			if err != nil {
				t.Fatal(err)
			}
			wrapped, state := string(w.Content), string(w.State)
			if tc.change != nil {
				wrapped = tc.change(t, wrapped)
			}
			if tc.state != nil {
				state = tc.state(t, state)
			}
			u, err := UnwrapText(tc.client, file, []byte(wrapped), []byte(state), nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want(t, tc.in); string(u.Content) != want {
				t.Errorf("unwrap gives\n%s\nwant\n%s", u.Content, want)
			}
			var got []Action
			for _, e := range u.Entries {
				got = append(got, e.Action)
			}
			if len(got) != len(tc.actions) {
				t.Fatalf("actions %v, want %v", got, tc.actions)
			}
			for i := range got {
				if got[i] != tc.actions[i] {
					t.Errorf("actions %v, want %v (%v)", got, tc.actions, u.Entries)
				}
			}
			if u.Identical != tc.identical {
				t.Errorf("Identical %v, want %v", u.Identical, tc.identical)
			}
			if u.State != nil {
				t.Errorf("a state is left after a full unwrap: %s", u.State)
			}
		})
	}
}

// TestUnwrapSelected unwraps one server of two: the other stays wrapped
// and keeps its record.
func TestUnwrapSelected(t *testing.T) {
	file := "/p/.mcp.json"
	w, err := WrapText(Claude, file, []byte(claudeIn), nil, &Options{Command: testCommand})
	if err != nil {
		t.Fatal(err)
	}
	u, err := UnwrapText(Claude, file, w.Content, w.State, &Options{Servers: []string{"mem"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Entries) != 1 || u.Entries[0].Action != Restored || u.State == nil || u.Identical {
		t.Fatalf("entries %v, state %q, identical %v", u.Entries, u.State, u.Identical)
	}
	all, err := UnwrapText(Claude, file, u.Content, u.State, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(all.Content) != claudeIn || !all.Identical || all.State != nil {
		t.Fatalf("second unwrap:\n%s", all.Content)
	}
	if _, err := UnwrapText(Claude, file, all.Content, nil, &Options{Servers: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown server: %v", err)
	}
}

// TestWrapRefusesBadOptions covers the command and proxy flags wrap will
// not write.
func TestWrapRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{
		{},
		{Command: "$HOME/bin/toolgate"},
		{Command: testCommand, ProxyArgs: []string{"--upstream-name=x"}},
		{Command: testCommand, ProxyArgs: []string{"--"}},
		{Command: testCommand, ProxyArgs: []string{"config.yaml"}},
		{Command: testCommand, ProxyArgs: []string{"--config=${HOME}/p.yaml"}},
	} {
		if _, err := WrapText(Claude, "/p/.mcp.json", []byte(claudeIn), nil, &o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	// Codex expands nothing, so a '$' is only a character there.
	if _, err := WrapText(Codex, "/p/config.toml", []byte(codexIn), nil, &Options{Command: "/opt/$x/toolgate"}); err != nil {
		t.Errorf("codex: %v", err)
	}
}

// TestUnwrapOtherProgramName unwraps entries wrapped with a proxy program
// not named toolgate: recognised by their record, or by Options.Command.
func TestUnwrapOtherProgramName(t *testing.T) {
	file := "/p/.mcp.json"
	w, err := WrapText(Claude, file, []byte(claudeIn), nil, &Options{Command: "/opt/bin/tg"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := UnwrapText(Claude, file, w.Content, w.State, nil)
	if err != nil || string(u.Content) != claudeIn {
		t.Fatalf("with the record: %v\n%s", err, u.Content)
	}
	u, err = UnwrapText(Claude, file, w.Content, nil, nil)
	if err != nil || string(u.Content) != string(w.Content) {
		t.Fatalf("without record or command, nothing is recognised: %v\n%s", err, u.Content)
	}
	u, err = UnwrapText(Claude, file, w.Content, nil, &Options{Command: "/opt/bin/tg"})
	if err != nil || len(u.Entries) != 2 || u.Entries[0].Action != Rebuilt {
		t.Fatalf("with the command: %v %v", err, u.Entries)
	}
}
