package mcpname

import "testing"

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"github", true},
		{"my-server", true},
		{"a_b", true},
		{"A1_b-2_c", true},
		{"", false},
		{"a__b", false},
		{"_a", false},
		{"a_", false},
		{"a.b", false},
		{"a b", false},
		{"ä", false},
		{string(make([]byte, MaxLen+1)), false},
	} {
		if err := Check(tc.name); (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	long := ""
	for len(long) < MaxLen {
		long += "a"
	}
	if err := Check(long); err != nil {
		t.Errorf("a name of MaxLen characters: %v", err)
	}
	if err := Check(long + "a"); err == nil {
		t.Error("a name longer than MaxLen is accepted")
	}
}
