package urlmatch

import "strings"

// IndexKey returns what every host the pattern matches ends with, for
// indexing: its rightmost labels up to the first one with a wildcard,
// lower-case and joined by dots ("example.com" for "*.example.com" and for
// "api.*.example.com"). It is "" for a pattern with nothing to key on ("*",
// "*.*", IPv4 wildcards, IPv6 addresses).
func (d *Domain) IndexKey() string {
	if d.any || d.ipv4 || strings.ContainsAny(d.text, "[]:") {
		return ""
	}
	n := 0
	for n < len(d.labels) && !d.labels[n].glob && d.labels[n].text != "" {
		n++
	}
	if n == 0 {
		return ""
	}
	parts := make([]string, n)
	for i := range n {
		parts[n-1-i] = d.labels[i].text
	}
	return strings.Join(parts, ".")
}

// HostSuffixes calls fn with every run of rightmost labels of host, as
// Domain.Match reads the host (trailing dots dropped, ASCII lower-cased):
// "com", "example.com", "api.example.com" for "API.example.com.". A pattern
// whose IndexKey is k can match host only if fn is called with k.
func HostSuffixes(host string, fn func(suffix string)) {
	h := trimDots(host)
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		return // an IPv6 address has no labels to key on
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; 'A' <= c && c <= 'Z' {
			h = strings.ToLower(h)
			break
		}
	}
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == '.' {
			fn(h[i+1:])
		}
	}
	fn(h)
}
