package toolgate

import (
	"reflect"
	"testing"
)

// TestHashRuleCoversRuleSpec: appendRule writes RuleSpec's fields by hand;
// a field added to RuleSpec or Position must be added there too, or the
// policy revision would not change with it.
func TestHashRuleCoversRuleSpec(t *testing.T) {
	if n := reflect.TypeFor[RuleSpec]().NumField(); n != 2 {
		t.Errorf("RuleSpec has %d fields; appendRule writes 2 (Text, Pos): update it", n)
	}
	if n := reflect.TypeFor[Position]().NumField(); n != 3 {
		t.Errorf("Position has %d fields; appendRule writes 3 (File, Line, Column): update it", n)
	}
	base := []Layer{{Source: SourceProject, File: "p.yaml", Allow: []RuleSpec{{Text: "Read", Pos: Position{File: "p.yaml", Line: 1, Column: 3}}}}}
	rev := revisionOf(base, Options{})
	for _, change := range []func(*RuleSpec){
		func(r *RuleSpec) { r.Text = "Edit" },
		func(r *RuleSpec) { r.Pos.File = "q.yaml" },
		func(r *RuleSpec) { r.Pos.Line = 2 },
		func(r *RuleSpec) { r.Pos.Column = 4 },
	} {
		ls := []Layer{base[0]}
		ls[0].Allow = []RuleSpec{base[0].Allow[0]}
		change(&ls[0].Allow[0])
		if revisionOf(ls, Options{}) == rev {
			t.Errorf("changing a rule (%+v) left the revision unchanged", ls[0].Allow[0])
		}
	}
	moved := []Layer{base[0]}
	moved[0].Allow = nil
	moved[0].Deny = base[0].Allow
	if revisionOf(moved, Options{}) == rev {
		t.Error("moving a rule from allow to deny left the revision unchanged")
	}
}
