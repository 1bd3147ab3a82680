package suggest

import "testing"

func TestClosest(t *testing.T) {
	cands := []string{"Bash", "Read", "Edit", "WebFetch", "precedence", "default_read_only"}
	tests := []struct{ in, want string }{
		{"Bsh", "Bash"},
		{"bash", "Bash"},
		{"Raed", "Read"},
		{"WebFetsh", "WebFetch"},
		{"precedense", "precedence"},
		{"default_readonly", "default_read_only"},
		{"zzz", ""},
		{"Eidt", "Edit"},
		{"ab", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, cands); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2},
		{"evn", "env", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}, {"Raed", "Read", 1}} {
		if got := Distance(tt.a, tt.b); got != tt.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}
