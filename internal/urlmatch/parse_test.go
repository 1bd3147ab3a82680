package urlmatch

import (
	"slices"
	"strings"
	"testing"
)

// l is a short way to write a list of strings in tables.
func l(s ...string) []string { return s }

var parseTests = []struct {
	in    string
	hosts []string
	urls  []string // nil: not checked
	err   string   // substring of the error; "" for none
}{
	// Plain URLs.
	{"https://api.example.com/v1/x?y=1", l("api.example.com"), l("https://api.example.com/v1/x?y=1"), ""},
	{"https://example.com", l("example.com"), l("https://example.com/"), ""},
	{"http://example.com/", l("example.com"), l("http://example.com/"), ""},
	{"https://example.com?q", l("example.com"), l("https://example.com/?q"), ""},
	{"https://example.com#top", l("example.com"), l("https://example.com/#top"), ""},

	// Userinfo: everything before the last "@" of the authority.
	{"https://a.com@evil.com", l("evil.com"), l("https://evil.com/"), ""},
	{"https://a@b@evil.com", l("evil.com"), l("https://evil.com/"), ""},
	{"https://user:pass@evil.com:8080/x", l("evil.com"), l("https://evil.com:8080/x"), ""},
	{"https://good.com:@evil.com/", l("evil.com"), nil, ""},
	{"https://good.com:443@evil.com/", l("evil.com"), nil, ""},
	{"http://x.com%2F@y.com/", l("y.com"), nil, ""},
	{"https://good.com/@evil.com", l("good.com"), l("https://good.com/@evil.com"), ""},
	{"https://good.com?@evil.com", l("good.com"), l("https://good.com/?@evil.com"), ""},
	{"https://good.com#@evil.com", l("good.com"), l("https://good.com/#@evil.com"), ""},
	{`https://good.com\@evil.com/`, l("good.com", "evil.com"), l("https://good.com/@evil.com/"), "net/url"},
	{"https://good.com%40evil.com/", l("good.com%40evil.com"), nil, "forbidden"},
	{"https://user@/", nil, nil, "no host"},

	// Readers disagree: a backslash ends the authority for a browser, not
	// for an RFC 3986 reader (Python's urllib), and net/url refuses it. Deny
	// rules see both hosts; no allow rule may match (the error).
	{`https://docs.example.com\@evil.example/`, l("docs.example.com", "evil.example"), l("https://docs.example.com/@evil.example/"), "net/url"},
	{`https://docs.example.com\x@evil.example:8080/`, l("docs.example.com", "evil.example"), nil, "net/url"},
	{"https:docs.example.com/x", l("docs.example.com"), l("https://docs.example.com/x"), "no host"},
	{"https:/docs.example.com/x", l("docs.example.com"), nil, "no host"},
	{" https://docs.example.com/", l("docs.example.com"), nil, "net/url"},
	// Look-alikes that every reader reads the same way.
	{"https://docs.example.com/a@b", l("docs.example.com"), l("https://docs.example.com/a@b"), ""},
	{"https://me@docs.example.com/x", l("docs.example.com"), l("https://docs.example.com/x"), ""},
	{"https://DOCS.example.com./x", l("docs.example.com"), nil, ""},

	// Backslashes are slashes in http(s) URLs.
	{`https:\\evil.com\x`, l("evil.com"), l("https://evil.com/x"), "no host"},
	{`https:/\evil.com/`, l("evil.com"), nil, "no host"},
	{`http://evil.com\.good.com/`, l("evil.com", `evil.com\.good.com`), l("http://evil.com/.good.com/"), "net/url"},
	{`https://example.com/a\b`, l("example.com"), l("https://example.com/a/b", "https://example.com/a%5Cb"), ""},

	// Slashes after the scheme. net/url reads no host in these, so the
	// readings disagree and they can only be denied or asked about.
	{"https:evil.com", l("evil.com"), l("https://evil.com/"), "no host"},
	{"https:/evil.com", l("evil.com"), nil, "no host"},
	{"https:///evil.com", l("evil.com"), nil, "no host"},
	{"https:////evil.com/x", l("evil.com"), l("https://evil.com/x"), "no host"},

	// Tabs, newlines, leading and trailing controls and spaces: the WHATWG
	// reading drops them, net/url refuses the URL (an error).
	{"https://ev\til.com/", l("evil.com"), l("https://evil.com/"), "net/url"},
	{"https://evil\n.com/", l("evil.com"), nil, "net/url"},
	{"https://evil.com\r/x", l("evil.com"), l("https://evil.com/x"), "net/url"},
	{"ht\ttps://evil.com", l("evil.com"), nil, "net/url"},
	{"  https://evil.com  ", l("evil.com"), l("https://evil.com/"), "net/url"},
	{"\x00https://evil.com\x1f", l("evil.com"), nil, "net/url"},
	{"https://exa\nmple.com/a\tb", l("example.com"), l("https://example.com/ab"), "net/url"},

	// Percent-encoding in the host (net/url refuses an escaped ASCII
	// byte in a host: an error).
	{"http://ex%61mple.com/", l("example.com"), l("http://example.com/"), "net/url"},
	{"http://EX%41MPLE.com/", l("example.com"), nil, "net/url"},
	{"http://evil%2ecom/", l("evil.com"), nil, "net/url"},
	{"http://b%C3%BCcher.example/", l("xn--bcher-kva.example"), l("http://xn--bcher-kva.example/"), ""},
	{"http://ex%00ample.com/", nil, nil, "forbidden"},
	{"http://%zz.com/", l("%zz.com"), nil, "forbidden"},
	{"http://a%2fb.com/", nil, nil, "forbidden"},
	{"https://evil.com%00.good.com/", nil, nil, "forbidden"},
	{"http://a%2541.com/", l("a%2541.com", "a%41.com"), nil, "forbidden"},
	{"http://%C3%28.com/", nil, nil, "UTF-8"},

	// IDNA.
	{"https://bücher.example/", l("xn--bcher-kva.example"), l("https://xn--bcher-kva.example/"), ""},
	{"https://BÜCHER.example/", l("xn--bcher-kva.example"), nil, ""},
	{"https://xn--bcher-kva.example/", l("xn--bcher-kva.example"), nil, ""},
	{"https://XN--BCHER-KVA.Example/", l("xn--bcher-kva.example"), nil, ""},
	{"https://faß.de/", l("xn--fa-hia.de"), nil, ""},
	{"https://ｅｘａｍｐｌｅ.com/", l("example.com"), nil, ""},
	{"https://例え.テスト/", l("xn--r8jz45g.xn--zckzah"), nil, ""},
	{"https://xn--abc.com/", nil, nil, "internationalised"},
	{"https://a\u200db.com/", nil, nil, "internationalised"},
	{"https://ex_ample.com/", l("ex_ample.com"), nil, ""},
	{"https://-x-.com/", l("-x-.com"), nil, ""},

	// Fullwidth and ideographic dots.
	{"https://example。com/", l("example.com"), l("https://example.com/"), ""},
	{"https://example．com/", l("example.com"), nil, ""},
	{"https://example｡com/", l("example.com"), nil, ""},
	{"https://a。b．c｡d/", l("a.b.c.d"), nil, ""},
	{"https://evil.com。/", l("evil.com"), nil, ""},

	// IPv4 in any spelling.
	{"http://127.0.0.1/", l("127.0.0.1"), l("http://127.0.0.1/"), ""},
	{"http://2130706433/", l("127.0.0.1"), l("http://127.0.0.1/"), ""},
	{"http://0x7f000001/", l("127.0.0.1"), nil, ""},
	{"http://0x7f.1/", l("127.0.0.1"), nil, ""},
	{"http://0X7F.0.0.1/", l("127.0.0.1"), nil, ""},
	{"http://0177.0.0.1/", l("127.0.0.1"), nil, ""},
	{"http://000000000000000000177.1/", l("127.0.0.1"), nil, ""},
	{"http://127.1/", l("127.0.0.1"), nil, ""},
	{"http://127.0.1/", l("127.0.0.1"), nil, ""},
	{"http://1.256/", l("1.0.1.0"), nil, ""},
	{"http://0/", l("0.0.0.0"), nil, ""},
	{"http://0x/", l("0.0.0.0"), nil, ""},
	{"http://127.0.0.1./", l("127.0.0.1"), l("http://127.0.0.1/"), ""},
	{"http://4294967295/", l("255.255.255.255"), nil, ""},
	{"http://%30x7f.1/", l("127.0.0.1"), nil, "net/url"},
	{"http://１２７.0.0.1/", l("127.0.0.1"), nil, ""},
	{"http://127。0。0。1/", l("127.0.0.1"), nil, ""},
	{"http://4294967296/", nil, nil, "out of range"},
	{"http://999999999999999999999/", nil, nil, "out of range"},
	{"http://256.0.0.1/", nil, nil, "greater than 255"},
	{"http://1.2.3.4.5/", nil, nil, "more than four"},
	{"http://1.2.3.09/", nil, nil, "IPv4"},
	{"http://foo.09/", nil, nil, "IPv4"},
	{"http://foo.0x/", nil, nil, "IPv4"},
	{"http://0x7g.1/", nil, nil, "IPv4"},
	{"http://1..1/", nil, nil, "IPv4"},
	{"http://1.2.3.4.example/", l("1.2.3.4.example"), nil, ""},
	{"http://0x7f.example/", l("0x7f.example"), nil, ""},
	{"http://127.0.0.1.../", l("127.0.0.1"), nil, ""}, // a domain by WHATWG; see finishDomain
	{"http:0..", l("0.0.0.0"), nil, "no host"},

	// IPv6.
	{"http://[::1]/", l("::1"), l("http://[::1]/"), ""},
	{"http://[0:0:0:0:0:0:0:1]:8080/", l("::1"), l("http://[::1]:8080/"), ""},
	{"http://[2001:DB8:0:0:1:0:0:1]/", l("2001:db8::1:0:0:1"), l("http://[2001:db8::1:0:0:1]/"), ""},
	{"http://[::1]:80/x", l("::1"), l("http://[::1]/x"), ""},
	{"http://[::ffff:127.0.0.1]/", l("127.0.0.1"), l("http://127.0.0.1/"), ""},
	{"http://[::ffff:7f00:1]/", l("127.0.0.1"), nil, ""},
	{"http://[0:0:0:0:0:ffff:169.254.169.254]/", l("169.254.169.254"), nil, ""},
	{"http://[::127.0.0.1]/", l("::7f00:1"), nil, ""},
	{"http://[fe80::1%25eth0]/", nil, nil, "IPv6"},
	{"http://[::1/", nil, nil, "bracket"},
	{"http://[1.2.3.4]/", nil, nil, "IPv6"},
	{"http://[::1]x/", nil, nil, "bracket"},
	{"http://[::g]/", nil, nil, "IPv6"},
	{"http://::1/", nil, nil, "no host"},

	// Trailing dots.
	{"https://example.com./", l("example.com"), l("https://example.com/"), ""},
	{"https://example.com../x", l("example.com"), l("https://example.com/x"), ""},
	{"https://EXAMPLE.COM.:443/", l("example.com"), l("https://example.com/"), ""},
	{"https://./", nil, nil, "no host"},

	// Ports.
	{"https://example.com:443/", l("example.com"), l("https://example.com/"), ""},
	{"https://example.com:0443/", l("example.com"), l("https://example.com/"), ""},
	{"http://example.com:80/", l("example.com"), l("http://example.com/"), ""},
	{"http://EXAMPLE.com:0080", l("example.com"), l("http://example.com/"), ""},
	{"https://example.com:80/", l("example.com"), l("https://example.com:80/"), ""},
	{"https://example.com:8443/a", l("example.com"), l("https://example.com:8443/a"), ""},
	{"https://example.com:/", l("example.com"), l("https://example.com/"), ""},
	{"https://example.com:65535/", l("example.com"), l("https://example.com:65535/"), ""},
	{"https://example.com:65536/", l("example.com"), nil, "port"},
	{"https://example.com:8a/", l("example.com"), nil, "port"},
	{"https://example.com:1:2/", l("example.com"), nil, "port"},
	{"https://:443/", nil, nil, "no host"},

	// Case.
	{"HTTPS://EXAMPLE.COM/Path?Q#F", l("example.com"), l("https://example.com/Path?Q#F"), ""},
	{"hTtP://Example.Com", l("example.com"), l("http://example.com/"), ""},

	// Paths, queries and fragments as the WHATWG parser serialises them.
	{"https://example.com/a/../../b", l("example.com"), l("https://example.com/b", "https://example.com/a/../../b"), ""},
	{"https://example.com/v1/%2e%2E/admin", l("example.com"), l("https://example.com/admin", "https://example.com/v1/%2e%2E/admin"), ""},
	{"https://example.com/a/./b/.", l("example.com"), l("https://example.com/a/b/", "https://example.com/a/./b/."), ""},
	{"https://example.com/..", l("example.com"), l("https://example.com/", "https://example.com/.."), ""},
	{"https://example.com/a b?c d'#e f`", l("example.com"), l("https://example.com/a%20b?c%20d%27#e%20f%60", "https://example.com/a%20b?c d'#e%20f%60"), ""},
	{"https://example.com/{x}^", l("example.com"), l("https://example.com/%7Bx%7D%5E"), ""},
	{"https://example.com/ü", l("example.com"), l("https://example.com/%C3%BC"), ""},

	// Other schemes can only be denied or asked about.
	{"ftp://evil.com/", l("evil.com"), l("ftp://evil.com/"), "only http and https"},
	{"ws://evil.com/", l("evil.com"), nil, "only http and https"},
	{"WSS://evil.com/", l("evil.com"), nil, "only http and https"},
	{"file:///etc/passwd", nil, nil, "only http and https"},
	{"file://evil.com/x", l("evil.com"), nil, "only http and https"},
	{"data:text/plain,hi", nil, nil, "only http and https"},
	{"javascript:alert(1)", nil, nil, "only http and https"},
	{"mailto:a@evil.com", l("evil.com"), nil, "only http and https"},
	{"gopher://evil.com/", l("evil.com"), nil, "only http and https"},
	{"localhost:8080/x", l("localhost"), nil, "only http and https"},

	// No host, no scheme, nothing.
	{"https://", nil, nil, "no host"},
	{"https:///", nil, nil, "no host"},
	{"https:", nil, nil, "no host"},
	{"https://?x", nil, nil, "no host"},
	{"https://#x", nil, nil, "no host"},
	{"", nil, nil, "no scheme"},
	{"   ", nil, nil, "no scheme"},
	{"example.com", l("example.com"), nil, "no scheme"},
	{"//evil.com/x", l("evil.com"), nil, "no scheme"},
	{"/just/a/path", nil, nil, "no scheme"},
	{"1http://evil.com", nil, nil, "no scheme"},

	// Hosts net/url reads but the WHATWG parser refuses.
	{"http://a<b.com/", l("a<b.com"), nil, "forbidden"},
	{"https://evil.com:99999/", l("evil.com"), l("https://evil.com:99999/"), "port"},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		got, err := Parse(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("Parse(%q): unexpected error %v", tt.in, err)
		case tt.err != "" && err == nil:
			t.Errorf("Parse(%q): no error, want one with %q", tt.in, tt.err)
		case tt.err != "" && !strings.Contains(err.Error(), tt.err):
			t.Errorf("Parse(%q): error %q, want one with %q", tt.in, err, tt.err)
		}
		if got.Raw != tt.in {
			t.Errorf("Parse(%q).Raw = %q", tt.in, got.Raw)
		}
		// After an error, only the first expected hosts are checked for:
		// the best-effort readings may hold more.
		if tt.err == "" || tt.hosts != nil {
			if !slices.Equal(got.Hosts, tt.hosts) {
				t.Errorf("Parse(%q).Hosts = %q, want %q", tt.in, got.Hosts, tt.hosts)
			}
		}
		if tt.urls != nil && !slices.Equal(got.URLs, tt.urls) {
			t.Errorf("Parse(%q).URLs = %q, want %q", tt.in, got.URLs, tt.urls)
		}
	}
}

func TestParseAltURLs(t *testing.T) {
	tests := []struct {
		in  string
		alt []string
	}{
		{"https://example.com/x", l("http://example.com/x")},
		{"http://example.com/x", l("https://example.com/x")},
		{"http://example.com:443/", l("https://example.com:443/", "https://example.com/")},
		{"https://example.com:80/", l("http://example.com:80/", "http://example.com/")},
		{"https://[::1]:80/", l("http://[::1]:80/", "http://[::1]/")},
		{"https://example.com/a#f", l("https://example.com/a", "http://example.com/a#f", "http://example.com/a")},
		{"https://example.com/a/../b", l("http://example.com/b", "http://example.com/a/../b")},
		{"ftp://example.com/a#f", l("ftp://example.com/a")},
	}
	for _, tt := range tests {
		got, _ := Parse(tt.in)
		if !slices.Equal(got.AltURLs, tt.alt) {
			t.Errorf("Parse(%q).AltURLs = %q, want %q", tt.in, got.AltURLs, tt.alt)
		}
	}
}

// TestParseHostInvariants checks properties every successful reading has.
func TestParseHostInvariants(t *testing.T) {
	for _, tt := range parseTests {
		checkTarget(t, tt.in)
	}
}

// checkTarget checks a parsed target: hosts are lowercase without a trailing
// dot, and when the URL parsed cleanly, each host reads as itself again.
func checkTarget(t *testing.T, raw string) {
	t.Helper()
	got, err := Parse(raw)
	for _, h := range got.Hosts {
		if h == "" || strings.HasSuffix(h, ".") || h != asciiLower(h) {
			t.Errorf("Parse(%q): host %q is empty, has a trailing dot or upper case", raw, h)
		}
	}
	if err != nil {
		return
	}
	if len(got.Hosts) == 0 || len(got.URLs) == 0 {
		t.Errorf("Parse(%q) = %+v without error, but has no host or URL", raw, got)
	}
	for _, h := range got.Hosts {
		again := "http://" + h + "/"
		if strings.IndexByte(h, ':') >= 0 {
			again = "http://[" + h + "]/"
		}
		t2, err := Parse(again)
		if err != nil || t2.Hosts[0] != h {
			t.Errorf("Parse(%q): host %q reads as %q (error %v)", raw, h, t2.Hosts, err)
		}
	}
	for _, u := range got.URLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			t.Errorf("Parse(%q): URL %q is neither http nor https", raw, u)
		}
	}
}
