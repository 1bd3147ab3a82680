package urlmatch

import (
	"slices"
	"testing"
)

func TestDomainIndexKey(t *testing.T) {
	for _, tc := range []struct{ pattern, key string }{
		{"example.com", "example.com"},
		{"*.example.com", "example.com"},
		{"api.*.example.com", "example.com"},
		{"API.Example.COM", "api.example.com"},
		{"*", ""},
		{"*.*", ""},
		{"10.0.0.*", ""},
		{"10.0.0.1", "10.0.0.1"},
		{"::1", ""},
		{"ex*.com", "com"},
		{"*.com", "com"},
	} {
		d, err := CompileDomain(tc.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		if got := d.IndexKey(); got != tc.key {
			t.Errorf("IndexKey(%q) = %q, want %q", tc.pattern, got, tc.key)
		}
	}
}

func TestHostSuffixes(t *testing.T) {
	var got []string
	HostSuffixes("API.example.com.", func(s string) { got = append(got, s) })
	if want := []string{"com", "example.com", "api.example.com"}; !slices.Equal(got, want) {
		t.Errorf("HostSuffixes = %q, want %q", got, want)
	}
}

// FuzzDomainIndex checks the promise an index relies on: whenever a domain
// pattern matches a host, the host has the pattern's key among its label
// suffixes.
func FuzzDomainIndex(f *testing.F) {
	for _, s := range [][2]string{{"*.example.com", "a.b.EXAMPLE.com."}, {"api.*.example.com", "api.x.example.com"}, {"10.0.0.1", "10.0.0.1"}, {"ex*.com", "exa.com"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		d, err := CompileDomain(pattern)
		if err != nil || !d.Match(host) {
			return
		}
		key := d.IndexKey()
		if key == "" {
			return
		}
		found := false
		HostSuffixes(host, func(s string) { found = found || s == key })
		if !found {
			t.Fatalf("domain pattern %q matches %q but its key %q is not a label suffix of it", pattern, host, key)
		}
	})
}

// FuzzURLIndexHost checks the promise the URL-pattern index relies on:
// whenever a URL pattern with an index host matches one of a parsed URL's
// readings (its URLs, and for deny its AltURLs), that host is among the
// URL's Hosts.
func FuzzURLIndexHost(f *testing.F) {
	for _, s := range [][2]string{
		{"https://api.example.com/v1/*", "https://API.example.com./v1/x"},
		{"*://example.com/*", "http://example.com:80/a"},
		{"https://example.com:*/*", "https://example.com:8443/"},
		{"https://[::1]/*", "https://[0:0::1]/x"},
		{"http://127.0.0.1/*", "http://0x7f.1/"},
		{"https://xn--bcher-kva.example/*", "https://bücher.example/a"},
		{"https://*.example.com/*", "https://a.b.EXAMPLE.com./x"},
		{"https://api.*.example.com:*/*", "https://api.x.example.com:8443/"},
		{"http://10.0.*.1/*", "http://10.0.5.1/"},
		{"https://ex*.com/*", "https://exa.b.com/"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, raw string) {
		tg, err := Parse(raw)
		if err != nil {
			return
		}
		for _, fold := range []bool{false, true} {
			p, err := CompileURL(pattern, fold)
			if err != nil || p.IndexHost() == "" && p.IndexHostSuffix() == "" {
				continue
			}
			readings := tg.URLs
			if fold {
				readings = append(append([]string(nil), tg.URLs...), AltURLsOf(tg.URLs)...)
			}
			for _, u := range readings {
				if !p.Match(u) {
					continue
				}
				if h := p.IndexHost(); h != "" && !slices.Contains(tg.Hosts, h) {
					t.Fatalf("URL pattern %q (fold %v) matches %q of %q, but its host %q is not among the hosts %q", pattern, fold, u, raw, h, tg.Hosts)
				}
				if k := p.IndexHostSuffix(); k != "" {
					found := false
					for _, h := range tg.Hosts {
						HostSuffixes(h, func(s string) { found = found || s == k })
					}
					if !found {
						t.Fatalf("URL pattern %q (fold %v) matches %q of %q, but its host suffix %q ends none of the hosts %q", pattern, fold, u, raw, k, tg.Hosts)
					}
				}
			}
		}
	})
}
