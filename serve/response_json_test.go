package serve

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// TestResponseFields: appendResponse writes every field of response,
// approvalRef and toolgate.Reason. A field added to one of them fails this
// test until appendResponse writes it (and the list below names it).
func TestResponseFields(t *testing.T) {
	fields := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			f := rt.Field(i)
			out = append(out, f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
		}
		return out
	}
	for _, c := range []struct {
		v    any
		want []string
	}{
		{response{}, []string{
			"Decision string decision", "Input json.RawMessage input,omitempty", "Reason toolgate.Reason reason",
			"Reasons []toolgate.Reason reasons", "Prompt string prompt,omitempty", "Suggestions []string suggestions,omitempty",
			"Revision string revision", "Approval *serve.approvalRef approval,omitempty",
		}},
		{approvalRef{}, []string{"ID string id", "State string state", "Expires string expires", "URL string url,omitempty"}},
		{toolgate.Reason{}, []string{
			"Kind toolgate.ReasonKind kind", "Rule string rule,omitempty", "Effect string effect,omitempty",
			"Source string source,omitempty", "File string file,omitempty", "Line int line,omitempty",
			"Column int column,omitempty", "Part string part,omitempty", "Message string message,omitempty",
			"RuleID toolgate.RuleID -",
		}},
	} {
		if got := fields(c.v); !slices.Equal(got, c.want) {
			t.Errorf("%T has the fields\n%q\nappendResponse writes\n%q\nupdate appendResponse (response_json.go) and this list", c.v, got, c.want)
		}
	}
}

// FuzzAppendResponse: appendResponse writes exactly json.Marshal's bytes,
// and fails exactly when it fails.
func FuzzAppendResponse(f *testing.F) {
	for _, s := range []struct {
		a, b   string
		n      int
		input  string
		approv bool
	}{
		{"allowed by Bash(npm run test:*)", "Bash(npm run test:*)", 3, "", false},
		{"<script>&</script>", "\u2028\u2029 \xff \xc3", 0, `{"command" : "a <b> & c",  "x":[1, 2.50, "\u2028"]}`, true},
		{"\x00\x01\b\f\n\r\t\x1f\x7f \"\\/", "emoji 🙂 é \u202e", -7, "null", true},
		{"", "", 1 << 40, `{"unclosed":`, false},
		{"a\u00a0b", "\xed\xa0\x80", 12, "[1,\n2]", true},
	} {
		f.Add(s.a, s.b, s.n, []byte(s.input), s.approv)
	}
	f.Fuzz(func(t *testing.T, a, b string, n int, input []byte, approv bool) {
		r := response{
			Decision: a, Input: input, Revision: b, Prompt: a + b, Suggestions: []string{a, b},
			Reason: toolgate.Reason{Kind: toolgate.ReasonKind(a), Rule: b, Message: a, Line: n, Column: -n},
			Reasons: []toolgate.Reason{
				{Kind: toolgate.ReasonKind(b), Effect: a, Source: b, File: a, Part: b, Line: n},
				{},
			},
		}
		if approv {
			r.Approval = &approvalRef{ID: a, State: b, Expires: a, URL: b}
		}
		if len(a)%3 == 0 {
			r.Reasons, r.Suggestions = nil, nil
		}
		want, werr := json.Marshal(r)
		got, gerr := appendResponse([]byte("prefix"), &r)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("json.Marshal: %v, appendResponse: %v", werr, gerr)
		}
		if werr != nil {
			if string(got) != "prefix" {
				t.Fatalf("a failed appendResponse left %q", got)
			}
			return
		}
		if string(got) != "prefix"+string(want) {
			t.Fatalf("appendResponse:\n%q\njson.Marshal:\n%q", got[len("prefix"):], want)
		}
	})
}

// TestMarshalResponseUnencodable: a decision whose input is not JSON is
// answered with a deny that names the failure, never left out or allowed.
func TestMarshalResponseUnencodable(t *testing.T) {
	r := response{Decision: "allow", Input: json.RawMessage(`{"command":`), Reasons: []toolgate.Reason{}, Revision: "rev"}
	out := marshalResponse([]byte("["), r)
	var got []response
	if err := json.Unmarshal(append(out, ']'), &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if len(got) != 1 || got[0].Decision != "deny" || got[0].Reason.Kind != toolgate.KindError ||
		!strings.Contains(got[0].Reason.Message, "cannot encode the decision") || got[0].Revision != "rev" {
		t.Fatalf("answered %s", out)
	}
}
