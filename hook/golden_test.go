package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/<client>/*.txtar")

// goldenCall is the golden form of a decoded call.
type goldenCall struct {
	Tool           string          `json:"tool"`
	Input          json.RawMessage `json:"input"`
	Cwd            string          `json:"cwd"`
	Home           string          `json:"home,omitempty"`
	Agent          string          `json:"agent,omitempty"`
	Session        string          `json:"session,omitempty"`
	Server         string          `json:"server,omitempty"`
	Mode           string          `json:"mode,omitempty"`
	NonInteractive bool            `json:"non_interactive,omitempty"`
}

func goldenOf(c toolgate.Call) []byte {
	g := goldenCall{Tool: c.Tool, Input: c.Input, Cwd: c.Cwd, Home: c.Home, Agent: c.Agent,
		Session: c.Session, Server: c.Server, NonInteractive: c.NonInteractive}
	if c.Mode != nil {
		g.Mode = c.Mode.String()
	}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return []byte("cannot marshal: " + err.Error() + "\n")
	}
	return append(b, '\n')
}

// caseOptions are a case's options section.
type caseOptions struct {
	AskPolicy AskPolicy `json:"ask_policy"`
	Home      string    `json:"home"`
}

// TestGolden runs every recorded payload in testdata/<client>/*.txtar
// through Run. An archive holds:
//
//	payload   the hook's standard input, exactly (trailing newline kept)
//	decision  the fake checker's decision (toolgate.Decision JSON); absent
//	          means the checker must not be reached
//	options   optional: {"ask_policy": "ask|deny", "home": "/h"}
//	call      golden: the call the checker got
//	stdout, stderr, exit   golden: the answer
//
// Run with -update to rewrite the golden sections.
func TestGolden(t *testing.T) {
	for _, c := range Clients {
		files, err := filepath.Glob(filepath.Join("testdata", string(c), "*.txtar"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("no cases for %s", c)
		}
		for _, file := range files {
			t.Run(string(c)+"/"+strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
				runGolden(t, c, file)
			})
		}
	}
}

func section(a *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

func setSection(a *txtar.Archive, name string, data []byte) {
	for i, f := range a.Files {
		if f.Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}

func runGolden(t *testing.T, c Client, file string) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	payload, ok := section(a, "payload")
	if !ok {
		t.Fatal("no payload section")
	}
	var opts Options
	if raw, ok := section(a, "options"); ok {
		var co caseOptions
		if err := json.Unmarshal(raw, &co); err != nil {
			t.Fatalf("options: %v", err)
		}
		opts.AskPolicy, opts.Home = co.AskPolicy, co.Home
	}
	rawDecision, haveDecision := section(a, "decision")
	var want toolgate.Decision
	if haveDecision {
		if err := json.Unmarshal(rawDecision, &want); err != nil {
			t.Fatalf("decision: %v", err)
		}
	}
	var got []byte = []byte("(not decided)\n")
	audited := 0
	opts.Audit = func(toolgate.Call, toolgate.Decision) { audited++ }
	decide := func(call toolgate.Call) (toolgate.Decision, error) {
		got = goldenOf(call)
		if !haveDecision {
			t.Errorf("the checker was reached, but the case has no decision")
		}
		return want, nil
	}
	var stdout, stderr bytes.Buffer
	exit := Run(context.Background(), c, bytes.NewReader(payload), &stdout, &stderr, decide, &opts)

	// Invariants of every answer.
	if exit == 0 {
		if !json.Valid(stdout.Bytes()) || stdout.Len() == 0 || stdout.Bytes()[0] != '{' {
			t.Errorf("exit 0 with stdout that is not one JSON object: %q", stdout.String())
		}
		if audited != 1 {
			t.Errorf("audited %d times, want 1", audited)
		}
	} else {
		if exit != 2 || stdout.Len() != 0 || stderr.Len() == 0 {
			t.Errorf("failure must be exit 2, empty stdout, a reason on stderr: exit %d, stdout %q, stderr %q", exit, stdout.String(), stderr.String())
		}
	}

	results := map[string][]byte{
		"call":   got,
		"stdout": stdout.Bytes(),
		"stderr": stderr.Bytes(),
		"exit":   fmt.Appendf(nil, "%d\n", exit),
	}
	if *update {
		for _, name := range []string{"call", "stdout", "stderr", "exit"} {
			setSection(a, name, results[name])
		}
		if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"call", "stdout", "stderr", "exit"} {
		wantData, ok := section(a, name)
		if !ok {
			t.Errorf("no %s section (run with -update)", name)
			continue
		}
		if !bytes.Equal(wantData, results[name]) {
			t.Errorf("%s:\n got: %s\nwant: %s", name, results[name], wantData)
		}
	}
}
