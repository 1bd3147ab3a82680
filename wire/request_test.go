package wire

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

func TestParseRequest(t *testing.T) {
	def := Defaults{Cwd: "/d", Home: "/h"}
	for _, tc := range []struct {
		in      string
		wantErr string // in the error; "" for none
		check   func(t *testing.T, c toolgate.Call)
	}{
		{in: `{"tool":"Bash","input":{"command":"ls"}}`, check: func(t *testing.T, c toolgate.Call) {
			if c.Tool != "Bash" || string(c.Input) != `{"command":"ls"}` || c.Cwd != "/d" || c.Home != "/h" || c.NotReadOnly {
				t.Errorf("call = %+v", c)
			}
		}},
		{in: `{"tool":"Read","cwd":"/p","home":"","agent":"a","session":"s","server":"srv"}`, check: func(t *testing.T, c toolgate.Call) {
			if c.Cwd != "/p" || c.Home != "/h" || c.Agent != "a" || c.Session != "s" || c.Server != "srv" {
				t.Errorf("call = %+v", c)
			}
		}},
		{in: `{"tool":"Read","read_only":false}`, check: func(t *testing.T, c toolgate.Call) {
			if !c.NotReadOnly {
				t.Error("read_only false did not mark the call not read-only")
			}
		}},
		{in: `{"tool":"Read","read_only":true}`, check: func(t *testing.T, c toolgate.Call) {
			if c.NotReadOnly {
				t.Error("read_only true made the call stricter")
			}
		}},
		{in: `{"tool":"Read","mode":"plan"}`, check: func(t *testing.T, c toolgate.Call) {
			if c.Mode == nil || c.Mode.Name != toolgate.ModePlan {
				t.Errorf("mode = %v", c.Mode)
			}
		}},
		{in: `{"tool":"Read","mod":"bypassPermissions"}`, wantErr: `unknown request field "mod"`},
		{in: `{"tool":"Read","tool":"Bash"}`, wantErr: "not valid JSON"},
		{in: `{"tool":"Read","mode":"yolo"}`, wantErr: `request field "mode"`},
		{in: `{"tool":1}`, wantErr: `"tool" must be a string`},
		{in: `{"tool":"Read","read_only":"no"}`, wantErr: `"read_only" must be a boolean`},
		{in: `{"tool":"Read","cwd":7}`, wantErr: `"cwd" must be a string`},
		{in: `{"input":{}}`, wantErr: `no "tool"`},
		{in: `[1]`, wantErr: "must be a JSON object"},
		{in: "{\"tool\":\"Read\xff\"}", wantErr: "not valid JSON"},
	} {
		c, err := ParseRequest([]byte(tc.in), def)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one with %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.check != nil:
			tc.check(t, c)
		}
	}
}

// FuzzParseRequest: the reader never panics, and a request it accepts
// names a tool and keeps the defaults where it says nothing.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"tool":"Bash","input":{"command":"ls"},"mode":"plan","read_only":false}`))
	f.Add([]byte(`{"tool":"Read","cwd":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseRequest(data, Defaults{Cwd: "/d"})
		if err != nil {
			return
		}
		if c.Cwd == "" {
			t.Fatalf("accepted %q with no working directory", data)
		}
	})
}
