package tomltext

import (
	"testing"

	"github.com/BurntSushi/toml"
)

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "tab\tnew\nline\x7f\x00", "ünïcode ✓"} {
		var v struct{ K string }
		if _, err := toml.Decode("K = "+Quote(s), &v); err != nil {
			t.Fatalf("Quote(%q) = %s: %v", s, Quote(s), err)
		}
		if v.K != s {
			t.Errorf("Quote(%q) reads back as %q", s, v.K)
		}
	}
}
