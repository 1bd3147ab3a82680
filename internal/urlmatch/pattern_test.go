package urlmatch

import (
	"errors"
	"strings"
	"testing"
)

func TestDomainMatch(t *testing.T) {
	tests := []struct {
		pattern string
		yes     []string
		no      []string
	}{
		{"example.com",
			l("example.com", "EXAMPLE.com", "example.com.", "Example.COM.."),
			l("a.example.com", "evilexample.com", "example.com.evil", "example.co", "xample.com", "", ".", "example", "com")},
		{"*.example.com",
			l("a.example.com", "A.Example.Com", "a.b.c.example.com", "api.example.com.", "x-y.example.com"),
			l("example.com", "evilexample.com", "a.evilexample.com", "example.com.evil.com", "a.example.co", "example.com.")},
		{"api-*.example.com",
			l("api-v1.example.com", "API-.example.com", "api-x-y.example.com"),
			l("api.example.com", "api-v1.x.example.com", "x.api-v1.example.com", "api-v1.example.com.evil", "api-v1.evil.com")},
		{"*-api.example.com", l("v1-api.example.com"), l("v1.x-api.example.com")},
		{"a*b.example.com", l("ab.example.com", "axxb.example.com"), l("a.b.example.com", "axb.c.example.com")},
		{"api.*.example.com", l("api.eu.example.com"), l("api.example.com", "api.a.b.example.com", "x.api.eu.example.com")},
		{"*.*.example.com", l("a.b.example.com", "a.b.c.example.com"), l("a.example.com", "example.com")},
		{"*", l("example.com", "localhost", "127.0.0.1", "::1"), l("", ".")},
		{"*.com", l("example.com", "a.b.com"), l("com", "example.org")},
		{"localhost", l("localhost", "LOCALHOST."), l("localhost.example.com", "local")},
		{"EXAMPLE.COM.", l("example.com"), l("a.example.com")},
		{"bücher.example", l("xn--bcher-kva.example"), l("bucher.example")},
		{"*.bücher.example", l("a.xn--bcher-kva.example"), l("xn--bcher-kva.example")},
		{"example。com", l("example.com"), nil},
		{"ex%61mple.com", l("example.com"), nil},
		{"127.0.0.1", l("127.0.0.1"), l("127.0.0.2", "1.127.0.0.1")},
		{"0x7f.1", l("127.0.0.1"), nil},
		{"2130706433", l("127.0.0.1"), nil},
		{"10.0.0.*", l("10.0.0.1", "10.0.0.255"), l("10.0.0.com", "10.0.1.1", "10.0.0.1.example")},
		{"192.168.*.*", l("192.168.1.1"), l("192.168.a.b")},
		{"[::1]", l("::1", "[::1]"), l("::2")},
		{"::1", l("::1"), nil},
		{"[::FFFF:127.0.0.1]", l("127.0.0.1"), nil},
		{"[2001:DB8::1]", l("2001:db8::1", "2001:DB8::1"), l("2001:db8::2")},
	}
	for _, tt := range tests {
		d, err := CompileDomain(tt.pattern)
		if err != nil {
			t.Errorf("CompileDomain(%q): %v", tt.pattern, err)
			continue
		}
		for _, h := range tt.yes {
			if !d.Match(h) {
				t.Errorf("domain %q (%s) does not match %q, want match", tt.pattern, d, h)
			}
		}
		for _, h := range tt.no {
			if d.Match(h) {
				t.Errorf("domain %q (%s) matches %q, want no match", tt.pattern, d, h)
			}
		}
	}
}

func TestDomainString(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"Example.COM.", "example.com"},
		{"*.Bücher.example", "*.xn--bcher-kva.example"},
		{"0x7f.1", "127.0.0.1"},
		{"[::ffff:1.2.3.4]", "1.2.3.4"},
		{"[2001:DB8:0::1]", "2001:db8::1"},
		{"API-*.Example.com", "api-*.example.com"},
		{"*.", "*"},
	}
	for _, tt := range tests {
		d, err := CompileDomain(tt.pattern)
		if err != nil {
			t.Errorf("CompileDomain(%q): %v", tt.pattern, err)
			continue
		}
		if got := d.String(); got != tt.want {
			t.Errorf("CompileDomain(%q).String() = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

func TestDomainErrors(t *testing.T) {
	tests := []struct {
		pattern string
		offset  int
		msg     string
	}{
		{"", 0, "empty"},
		{"https://example.com", 5, "not a host name"},
		{"example.com:443", 11, "not a host name"},
		{"example.com/path", 11, "not a host name"},
		{"user@example.com", 4, "not a host name"},
		{"exa mple.com", 3, "forbidden"},
		{"exa<mple.com", 3, "forbidden"},
		{"*.exa|mple.com", 5, "forbidden"},
		{"256.0.0.1", 0, "IPv4"},
		{"foo.0x", 0, "IPv4"},
		{"[::1", 0, "bracket"},
		{"[fe80::1%25eth0]", 8, "IPv6"},
		{"xn--abc.com", 0, "internationalised"},
		{"*ü.example.com", 0, "wildcard"},
		{"*..example.com", 0, "empty label"},
		{"[*::1]", 0, "IPv6"},
	}
	for _, tt := range tests {
		_, err := CompileDomain(tt.pattern)
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("CompileDomain(%q) error = %v, want a *PatternError", tt.pattern, err)
			continue
		}
		if pe.Offset != tt.offset || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("CompileDomain(%q) error = %v, want offset %d and %q", tt.pattern, err, tt.offset, tt.msg)
		}
	}
}

func TestURLPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		yes     []string // raw URLs: every one of their URLs must match
		no      []string // raw URLs: none of their URLs may match
	}{
		{"https://api.example.com/v1/*", false,
			l("https://api.example.com/v1/x", "https://API.example.com:443/v1/x?y=1", "https://user:pw@api.example.com/v1/",
				"https://api.example.com./v1/a/b", `https:\\api.example.com\v1\x`, "https://api.ex%61mple.com/v1/x"),
			l("https://api.example.com/v2/x", "https://api.example.com/V1/x", "https://api.example.com:8443/v1/x",
				"http://api.example.com/v1/x", "https://api.example.com.evil.com/v1/x", "https://api.example.com/v1")},
		{"https://api.example.com/v1/*", true,
			l("https://api.example.com/V1/X"), l("https://api.example.com/v2/x")},
		{"HTTPS://API.Example.COM:443/v1/*", false, l("https://api.example.com/v1/x"), l("https://api.example.com/V1/x")},
		{"https://example.com", false, l("https://example.com", "https://example.com/", "https://example.com:443"), l("https://example.com/x")},
		{"https://example.com/", false, l("https://example.com"), nil},
		{"https://example.com:8443/*", false, l("https://example.com:8443/x", "https://example.com:08443/"), l("https://example.com/x")},
		{"http://example.com:80/*", false, l("http://example.com/x"), l("http://example.com:8080/x")},
		{"https://*.example.com/*", false, l("https://a.example.com/", "https://a.b.example.com/x"), l("https://example.com/", "https://evil.com/x.example.com/")},
		{"https://example.com:*/*", false, l("https://example.com:8080/"), l("https://example.com/")},
		{"https://example.com*", false, l("https://example.com/", "https://example.com:8080/x"), l("https://example.org/")},
		{"*://example.com/*", false, l("https://example.com/x", "http://example.com/"), l("https://example.org/")},
		{"https://bücher.example/*", false, l("https://xn--bcher-kva.example/x", "https://BÜCHER.example/"), nil},
		{"https://127.0.0.1/*", false, l("https://0x7f.1/", "https://2130706433/", "https://[::ffff:127.0.0.1]/"), l("https://127.0.0.2/")},
		{"https://[::1]/*", false, l("https://[0::1]/x"), nil},
		{"https://example.com/a b/*", false, l("https://example.com/a b/c", "https://example.com/a%20b/c"), nil},
		{"https://example.com/admin*", true, l("https://example.com/ADMIN", "https://example.com/admin/x"), l("https://example.com/v1/admin")},
		{"https://example.com/x?*", false, l("https://example.com/x?a=1"), l("https://example.com/x")},
		{"https://example.com/x#*", false, l("https://example.com/x#frag"), l("https://example.com/x")},
	}
	for _, tt := range tests {
		p, err := CompileURL(tt.pattern, tt.fold)
		if err != nil {
			t.Errorf("CompileURL(%q): %v", tt.pattern, err)
			continue
		}
		for _, raw := range tt.yes {
			// Some of these URLs cannot be allowed (net/url reads them
			// otherwise); their WHATWG serialisation still matches.
			target, _ := Parse(raw)
			if len(target.URLs) == 0 {
				t.Errorf("Parse(%q): no URL reading", raw)
				continue
			}
			for _, u := range target.URLs {
				if !p.Match(u) {
					t.Errorf("URL pattern %q (%s, fold %v) does not match %q (from %q), want match", tt.pattern, p, tt.fold, u, raw)
				}
			}
		}
		for _, raw := range tt.no {
			target, _ := Parse(raw)
			for _, u := range target.URLs {
				if p.Match(u) {
					t.Errorf("URL pattern %q (%s, fold %v) matches %q (from %q), want no match", tt.pattern, p, tt.fold, u, raw)
				}
			}
		}
	}
}

// TestURLPatternAnyReading checks that some reading, the deny-only ones
// included, reaches what deny rules must see.
func TestURLPatternAnyReading(t *testing.T) {
	tests := []struct{ pattern, raw string }{
		{"http://example.com/*", "https://example.com/x"},
		{"https://example.com/*", "http://example.com/x"},
		{"http://example.com/*", "https://example.com:80/x"},
		{"https://example.com/secret", "https://example.com/secret#top"},
		{"https://example.com/admin*", "https://example.com/v1/../admin"},
		{"https://example.com/v1/../*", "https://example.com/v1/../admin"},
	}
	for _, tt := range tests {
		p, err := CompileURL(tt.pattern, true)
		if err != nil {
			t.Fatal(err)
		}
		target, err := Parse(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		matched := false
		for _, u := range append(target.URLs, target.AltURLs...) {
			matched = matched || p.Match(u)
		}
		if !matched {
			t.Errorf("pattern %q matches none of %q (from %q)", tt.pattern, target.AltURLs, tt.raw)
		}
	}
}

func TestURLPatternString(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"HTTPS://API.Example.COM:443/v1/*", "https://api.example.com/v1/*"},
		{"https://example.com", "https://example.com/"},
		{"https://example.com*", "https://example.com*"},
		{"https://Bücher.example./a b", "https://xn--bcher-kva.example/a%20b"},
		{"https://[::FFFF:127.0.0.1]:8080/", "https://127.0.0.1:8080/"},
		{"https://[2001:DB8::1]/", "https://[2001:db8::1]/"},
		{"https://example.com/a/../b/*", "https://example.com/b/*"},
		{`https://example.com\a`, "https://example.com/a"},
		{"https://*.Example.com:*/*", "https://*.example.com:*/*"},
	}
	for _, tt := range tests {
		p, err := CompileURL(tt.pattern, false)
		if err != nil {
			t.Errorf("CompileURL(%q): %v", tt.pattern, err)
			continue
		}
		if got := p.String(); got != tt.want {
			t.Errorf("CompileURL(%q).String() = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

func TestURLPatternErrors(t *testing.T) {
	tests := []struct {
		pattern string
		offset  int
		msg     string
	}{
		{"example.com/*", 0, "scheme"},
		{"://example.com/", 0, "scheme"},
		{"ht tp://example.com/", 2, "scheme"},
		{"https://user@example.com/*", 12, "user information"},
		{"https:///x", 8, "no host"},
		{"https://:443/", 8, "no host"},
		{"https://example.com:99999/", 20, "port"},
		{"https://example.com:8a/", 20, "port"},
		{"https://exa mple.com/", 11, "forbidden"},
		{"https://256.0.0.1/", 8, "IPv4"},
		{"https://[::1/", 8, "bracket"},
	}
	for _, tt := range tests {
		_, err := CompileURL(tt.pattern, false)
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("CompileURL(%q) error = %v, want a *PatternError", tt.pattern, err)
			continue
		}
		if pe.Offset != tt.offset || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("CompileURL(%q) error = %v, want offset %d and %q", tt.pattern, err, tt.offset, tt.msg)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		p, s string
		fold bool
		want bool
	}{
		{"", "", false, true},
		{"*", "", false, true},
		{"*", "anything", false, true},
		{"a*", "a", false, true},
		{"a*c", "abbbc", false, true},
		{"a*c", "abbbcd", false, false},
		{"*a*a*", "banana", false, true},
		{"*x*", "banana", false, false},
		{"abc", "ABC", false, false},
		{"abc", "ABC", true, true},
		{"a*c", "AXC", true, true},
		{"**", "x", false, true},
		{"a**b", "ab", false, true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.p, tt.s, tt.fold); got != tt.want {
			t.Errorf("globMatch(%q, %q, %v) = %v, want %v", tt.p, tt.s, tt.fold, got, tt.want)
		}
	}
}
