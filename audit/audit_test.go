package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/audittest"
)

func readJSONLFile(t *testing.T, path string) []audit.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, err := audit.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestDiscardConformance(t *testing.T) {
	audittest.Run(t, audittest.Harness{New: func(*testing.T, string) audit.Sink { return audit.Discard }})
}

func TestJSONLConformance(t *testing.T) {
	dir := t.TempDir()
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			s, err := audit.CreateJSONL(filepath.Join(dir, name+".jsonl"), false)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Events: func(t *testing.T, name string) []audit.Event {
			return readJSONLFile(t, filepath.Join(dir, name+".jsonl"))
		},
	})
}

func TestJSONLWriterConformance(t *testing.T) {
	bufs := map[string]*bytes.Buffer{}
	var mu sync.Mutex
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			mu.Lock()
			defer mu.Unlock()
			bufs[name] = &bytes.Buffer{}
			return audit.NewJSONL(bufs[name])
		},
		Events: func(t *testing.T, name string) []audit.Event {
			mu.Lock()
			defer mu.Unlock()
			evs, err := audit.ReadJSONL(bufs[name])
			if err != nil {
				t.Fatal(err)
			}
			return evs
		},
	})
}

type failSink struct{ err error }

func (f failSink) Record(context.Context, *audit.Event) error { return f.err }

func (f failSink) Close() error { return f.err }

func TestMultiErrors(t *testing.T) {
	var buf bytes.Buffer
	boom := errors.New("boom")
	m := audit.Multi(audit.NewJSONL(&buf), failSink{boom}, nil)
	err := m.Record(t.Context(), audittest.Event(1))
	if !errors.Is(err, boom) {
		t.Errorf("Record: %v", err)
	}
	if buf.Len() == 0 {
		t.Error("a failing sink stopped the others")
	}
	if err := m.Close(); !errors.Is(err, boom) {
		t.Errorf("Close: %v", err)
	}
	if err := audit.Multi().Record(t.Context(), audittest.Event(1)); err != nil {
		t.Errorf("empty Multi: %v", err)
	}
}

func TestWriteTable(t *testing.T) {
	e := audittest.Event(0)
	e.Tool = "evil\x1b[2J\u202etool"
	var b bytes.Buffer
	if err := audit.WriteTable(&b, []audit.Event{*e}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("table:\n%s", out)
	}
	for _, want := range []string{e.ID, "session-0", `evil\u001b[2J\u202etool`, "allow*", `rule: deny rule "Bash(rm *)"`, `\u202e removal`} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row lacks %q:\n%s", want, lines[1])
		}
	}
	if strings.ContainsRune(out, '\x1b') || strings.ContainsRune(out, '\u202e') {
		t.Error("control characters reached the table")
	}
	var j bytes.Buffer
	if err := audit.WriteJSONL(&j, []audit.Event{*e, *e}); err != nil {
		t.Fatal(err)
	}
	back, err := audit.ReadJSONL(&j)
	if err != nil || len(back) != 2 || !audittest.Equal(&back[0], e) {
		t.Errorf("JSONL round trip: %v %+v", err, back)
	}
}

func TestDefaultRedactor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"password":"x","Api-Key":"k","nested":{"client_secret":"s","ok":"v"},"list":[{"token":7}]}`,
			`{"Api-Key":"[REDACTED]","list":[{"token":"[REDACTED]"}],"nested":{"client_secret":"[REDACTED]","ok":"v"},"password":"[REDACTED]"}`},
		{`{"command":"curl -H 'Authorization: Bearer abcdefghijkl' https://x"}`, `{"command":"curl -H 'Authorization: Bearer [REDACTED]' https://x"}`},
		{`{"command":"mysql --password=hunter22 db"}`, `{"command":"mysql --password=[REDACTED] db"}`},
		{`{"author":"ann","big":12345678901234567890}`, `{"author":"ann","big":12345678901234567890}`},
		{`{bad`, `"[REDACTED]"`},
	} {
		got := string(audit.DefaultRedactor("T", json.RawMessage(tc.in)))
		if got != tc.want {
			t.Errorf("redact %s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if audit.DefaultRedactor("T", nil) != nil {
		t.Error("nil input")
	}
	if !audit.SecretKey("AWS_SECRET_ACCESS_KEY") || audit.SecretKey("path") {
		t.Error("SecretKey")
	}
}

func TestIDAndDigest(t *testing.T) {
	a, b := audit.NewID(), audit.NewID()
	if len(a) != 32 || a == b {
		t.Errorf("ids %s %s", a, b)
	}
	if audit.Digest([]byte("abc")) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Error("digest")
	}
}

// --- crash safety ---
