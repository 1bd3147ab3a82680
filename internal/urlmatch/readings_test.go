package urlmatch

import (
	"net/url"
	"testing"
)

// FuzzReadingsAgree checks that a URL Parse accepts (one that an allow rule
// may match) is one Go's net/url also reads, with a host among Hosts.
func FuzzReadingsAgree(f *testing.F) {
	for _, s := range []string{
		"https://docs.example.com/x", `https://docs.example.com\@evil.example/`, "https:docs.example.com/x",
		"https://a@b.example/", " https://x.example/", "http://[::1]:8080/a", "https://EXAMPLE.com./?q#f",
		"http://0x7f.1/", `https://a.example\x`, "https:///a.example", "https://a.example%2F@b.example/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tg, err := Parse(raw)
		if err != nil {
			return
		}
		u, gerr := url.Parse(raw)
		if gerr != nil || u.Host == "" {
			t.Fatalf("Parse(%q) accepted a URL net/url reads as %v, %v", raw, u, gerr)
		}
		if len(tg.Hosts) == 0 || len(tg.URLs) == 0 {
			t.Fatalf("Parse(%q) accepted a URL without readings: %+v", raw, tg)
		}
	})
}
