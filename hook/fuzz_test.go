package hook

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/toolgate/toolgate"
)

// fuzzDecode checks Decode never panics, returns an error or a usable call
// (never neither), and that Encode of any outcome for a decoded call is one
// JSON object.
func fuzzDecode(f *testing.F, c Client) {
	files, _ := filepath.Glob(filepath.Join("testdata", string(c), "*.txtar"))
	for _, file := range files {
		if a, err := txtar.ParseFile(file); err == nil {
			if p, ok := section(a, "payload"); ok {
				f.Add(p)
			}
		}
	}
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		call, m, err := Decode(c, payload)
		if err != nil {
			if call.Tool != "" || call.Input != nil {
				t.Fatalf("error %v with a call %+v", err, call)
			}
			return
		}
		if call.Tool == "" || len(call.Input) == 0 || call.Input[0] != '{' || !json.Valid(call.Input) || !filepath.IsAbs(call.Cwd) || m.Event == "" {
			t.Fatalf("no error, but an unusable call %+v (meta %+v)", call, m)
		}
		for _, o := range []toolgate.Outcome{toolgate.Invalid, toolgate.Allow, toolgate.Ask, toolgate.Deny, toolgate.Modify} {
			out, _, exit := Encode(c, toolgate.Decision{Outcome: o, Input: call.Input}, m, &Options{AskPolicy: AskAsk})
			if exit != 0 || !json.Valid(out) {
				t.Fatalf("outcome %v: exit %d, %q", o, exit, out)
			}
		}
	})
}

func FuzzDecodeClaude(f *testing.F) { fuzzDecode(f, Claude) }
func FuzzDecodeGemini(f *testing.F) { fuzzDecode(f, Gemini) }
func FuzzDecodeCodex(f *testing.F)  { fuzzDecode(f, Codex) }
func FuzzDecodeCursor(f *testing.F) { fuzzDecode(f, Cursor) }
