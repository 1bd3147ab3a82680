package urlmatch

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that every host it returns is
// lowercase without a trailing dot, that a host from a clean parse reads as
// itself again, that the WHATWG serialisation is stable, and that the
// serialisation's shortcut (raw itself when it is already serialised) and
// a reused buffer change nothing.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	var buf [3]string
	f.Fuzz(func(t *testing.T, raw string) {
		checkTarget(t, raw)
		if u, _ := parseWHATWG(raw); u.complete {
			if a, b := u.serialiseFrom(raw), u.serialise(); a != b {
				t.Errorf("serialiseFrom(%q) = %q, serialise = %q", raw, a, b)
			}
		}
		lazy, lerr := ParseLazy(raw)
		into, ierr := ParseLazyInto(raw, &buf)
		if !slices.Equal(lazy.Hosts, into.Hosts) || !slices.Equal(lazy.URLs, into.URLs) || (lerr == nil) != (ierr == nil) {
			t.Errorf("ParseLazyInto(%q) = %+v, %v; ParseLazy = %+v, %v", raw, into, ierr, lazy, lerr)
		}
		got, err := Parse(raw)
		if err != nil {
			return
		}
		again, err := Parse(got.URLs[0])
		if err != nil || again.URLs[0] != got.URLs[0] {
			t.Errorf("Parse(%q).URLs[0] = %q reads as %q (error %v)", raw, got.URLs[0], again.URLs, err)
		}
	})
}

// FuzzDomain checks that CompileDomain never panics, that a pattern without
// "*" matches its own normalised text, and that "*.x" matches a subdomain
// of x but never x.
func FuzzDomain(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com", "api-*.example.com", "*", "bücher.example",
		"0x7f.1", "[::1]", "10.0.0.*", "Example.COM.", "a..b", "例え.テスト"} {
		f.Add(s, "a.example.com")
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		d, err := CompileDomain(pattern)
		if err != nil {
			return
		}
		d.Match(host)
		text := d.String()
		if !strings.Contains(text, "*") && !d.Match(text) {
			t.Errorf("CompileDomain(%q) = %q does not match its own text", pattern, text)
		}
		if rest, ok := strings.CutPrefix(text, "*."); ok && !strings.Contains(rest, "*") {
			if d.Match(rest) {
				t.Errorf("CompileDomain(%q) = %q matches its apex %q", pattern, text, rest)
			}
			if !d.Match("x." + rest) {
				t.Errorf("CompileDomain(%q) = %q does not match x.%s", pattern, text, rest)
			}
		}
	})
}

// FuzzURLPattern checks that CompileURL never panics and that a pattern
// without "*" matches the URL its own text parses to.
func FuzzURLPattern(f *testing.F) {
	for _, s := range []string{"https://api.example.com/v1/*", "https://example.com", "HTTPS://Bücher.example:443/a b?c#d",
		"https://[::ffff:127.0.0.1]/", "*://example.com/*", "https://example.com/a/../b"} {
		f.Add(s, "https://api.example.com/v1/x")
	}
	f.Fuzz(func(t *testing.T, pattern, url string) {
		p, err := CompileURL(pattern, false)
		if err != nil {
			return
		}
		p.Match(url)
		text := p.String()
		if strings.Contains(text, "*") {
			return
		}
		target, err := Parse(text)
		if err != nil {
			return // for example another scheme
		}
		if !p.Match(target.URLs[0]) {
			t.Errorf("CompileURL(%q) = %q does not match %q", pattern, text, target.URLs[0])
		}
	})
}
