package paramindex

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/starglob"
)

func TestVisit(t *testing.T) {
	var x Index[string]
	for _, r := range []struct{ key, pat string }{
		{"sql", "select 1"},
		{"sql", "drop table*"},
		{"sql", "*truncate*"},
		{"to.addr", "root@*"},
	} {
		g := starglob.Compile(r.pat, true)
		x.Add(r.key+":"+r.pat, r.key, &g)
	}
	x.AddRest("other")
	for _, tc := range []struct {
		input string
		want  []string
	}{
		{`{"sql":"SELECT 1"}`, []string{"other", "sql:*truncate*", "sql:select 1"}},
		{`{"sql":"drop table t"}`, []string{"other", "sql:*truncate*", "sql:drop table*"}},
		{`{"sql":["x","DROP TABLE y"]}`, []string{"other", "sql:*truncate*", "sql:drop table*"}},
		{`{"sql":{"a":{"b":"select 1"}}}`, []string{"other", "sql:*truncate*", "sql:select 1"}},
		{`{"to":{"addr":"Root@example.com"}}`, []string{"other", "sql:*truncate*", "to.addr:root@*"}},
		{`{"sql":"drop"}`, []string{"other", "sql:*truncate*"}},
		{`{}`, []string{"other", "sql:*truncate*"}},
	} {
		doc, err := jsonin.Parse([]byte(tc.input))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		x.Visit(doc.Root(), func(r string) { got = append(got, r) })
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Visit(%s) = %q, want %q", tc.input, got, tc.want)
		}
	}
}

func TestEachStringForm(t *testing.T) {
	doc, err := jsonin.Parse([]byte(`{"v":["a",["b",{"c":"d"}],7,true,null]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	EachStringForm(doc.Root().Get("v"), func(s string) { got = append(got, s) })
	if want := []string{"a", "b", "d", "7", "true", "null"}; !slices.Equal(got, want) {
		t.Errorf("EachStringForm = %q, want %q", got, want)
	}
	EachStringForm(doc.Root().Get("missing"), func(s string) { t.Errorf("a missing value has form %q", s) })
}
