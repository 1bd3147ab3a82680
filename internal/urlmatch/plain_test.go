package urlmatch

import (
	"net/url"
	"testing"
)

// TestPlainURLAgrees checks that for every URL plainURL accepts, net/url
// reads the same host and serialisation as the WHATWG reading, so skipping
// the second reading loses nothing.
func TestPlainURLAgrees(t *testing.T) {
	for _, raw := range []string{
		"https://api.example.com/v1/items?x=1",
		"http://docs.rs/serde",
		"https://a-b.c9.example.org:8443/p/q;r=s?t=u&v=w",
		"https://example.com",
		"https://x.y/a:b/c*d",
	} {
		if !plainURL(raw) {
			t.Errorf("plainURL(%q) = false, want true", raw)
			continue
		}
		checkAgree(t, raw)
	}
	for _, raw := range []string{
		"https://Example.com/", "https://a.com@b.com/", "https://b.com\\@a.com/", "https://127.0.0.1/",
		"https://2130706433/", "https://a.com./", "https://a..com/", "https://a.com/%2e%2e/", "https://a.com/./x",
		"https://a.com/x#y", "HTTPS://a.com/", "https://a.com:/", "https://a.com/ x", "ftp://a.com/", "https:a.com",
	} {
		if plainURL(raw) {
			t.Errorf("plainURL(%q) = true, want false", raw)
		}
	}
}

func checkAgree(t *testing.T, raw string) {
	t.Helper()
	u, err := parseWHATWG(raw)
	if err != nil || u.host == "" {
		t.Fatalf("WHATWG reading of %q failed: %v", raw, err)
	}
	var tg Target
	if err := tg.addGoReading(raw, u.scheme); err != nil {
		t.Fatalf("net/url reading of %q: %v", raw, err)
	}
	gu, _ := url.Parse(raw)
	if len(tg.Hosts) != 1 || tg.Hosts[0] != u.host {
		t.Errorf("%q: net/url host %v, WHATWG host %q", raw, tg.Hosts, u.host)
	}
	if len(tg.URLs) != 1 || tg.URLs[0] != u.serialise() {
		t.Errorf("%q: net/url URL %v (from %v), WHATWG URL %q", raw, tg.URLs, gu, u.serialise())
	}
}

func FuzzPlainURL(f *testing.F) {
	f.Add("https://api.example.com/v1/items?x=1")
	f.Fuzz(func(t *testing.T, raw string) {
		// Parse skips the second reading only when the WHATWG reading
		// succeeded and the URL is plain.
		if u, err := parseWHATWG(raw); err == nil && u.complete && u.host != "" && plainURL(raw) {
			checkAgree(t, raw)
		}
	})
}

func TestParseLazyAgrees(t *testing.T) {
	for _, raw := range []string{"https://a.example.com/x", "http://x:80/y#z", "https://u@h.com:443/", "ftp://x/", "https:\\\\evil.com\\x"} {
		full, err1 := Parse(raw)
		lazy, err2 := ParseLazy(raw)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: errors differ: %v / %v", raw, err1, err2)
		}
		alt := AltURLsOf(lazy.URLs)
		if len(alt) != len(full.AltURLs) {
			t.Fatalf("%q: AltURLsOf %v, Parse %v", raw, alt, full.AltURLs)
		}
		for i := range alt {
			if alt[i] != full.AltURLs[i] {
				t.Fatalf("%q: AltURLsOf %v, Parse %v", raw, alt, full.AltURLs)
			}
		}
	}
}
