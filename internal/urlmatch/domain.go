package urlmatch

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// PatternError is a domain or URL pattern that cannot be compiled.
type PatternError struct {
	Offset int    // byte offset of the problem inside the pattern
	Msg    string // what is wrong
}

// Error returns the message with its offset.
func (e *PatternError) Error() string {
	return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
}

// Domain is a compiled `domain:` host pattern. It is immutable and safe for
// concurrent use.
type Domain struct {
	text   string   // the normalised pattern
	any    bool     // "*": every host
	sub    bool     // a leading "*." label: one or more labels of any kind
	ipv4   bool     // an IPv4 pattern with wildcards ("10.0.0.*"): IPv4 hosts only
	labels []dlabel // the remaining labels, rightmost first
}

// dlabel is one label of a domain pattern.
type dlabel struct {
	text string // lowercase
	glob bool   // text holds "*"
}

// CompileDomain compiles a host pattern.
//
// The pattern is normalised like a host: percent-decoded, mapped to ASCII
// with IDNA, lowercased, trailing dots removed, IPv4 addresses in dotted
// decimal, IPv6 addresses canonical (with or without brackets). "*" alone
// matches every host; a leading "*." matches one or more labels of any
// kind; any other "*" matches a run of characters inside one label. A
// scheme, port, path or userinfo is an error, since a host never contains
// one and the pattern could never match.
func CompileDomain(pattern string) (*Domain, error) {
	if pattern == "" {
		return nil, &PatternError{0, "empty domain pattern"}
	}
	text, err := normaliseHostPattern(pattern)
	if err != nil {
		return nil, err
	}
	d := &Domain{text: text}
	if text == "*" {
		d.any = true
		return d, nil
	}
	labels := strings.Split(text, ".")
	if labels[0] == "*" && len(labels) > 1 {
		d.sub = true
		labels = labels[1:]
	}
	wild := strings.IndexByte(text, '*') >= 0
	d.ipv4 = wild && !d.sub && isIPv4Pattern(labels)
	d.labels = make([]dlabel, len(labels))
	for i, l := range labels {
		if wild && l == "" {
			return nil, &PatternError{0, fmt.Sprintf("domain pattern %q has an empty label", pattern)}
		}
		d.labels[len(labels)-1-i] = dlabel{text: l, glob: strings.IndexByte(l, '*') >= 0}
	}
	return d, nil
}

// normaliseHostPattern normalises the host of a domain or URL pattern.
func normaliseHostPattern(pattern string) (string, error) {
	if pattern[0] != '[' {
		if a, err := netip.ParseAddr(pattern); err == nil && a.Is6() {
			pattern = "[" + pattern + "]"
		} else if i := strings.IndexAny(pattern, `/:@?#\`); i >= 0 {
			return "", &PatternError{i, fmt.Sprintf("%q is not a host name: a domain pattern has no scheme, port, path or user", pattern)}
		}
	}
	if strings.IndexByte(pattern, '*') >= 0 {
		h, err := wildcardHost(pattern)
		if err != nil {
			return "", hostPatternError(pattern, err)
		}
		return h, nil
	}
	h, _, err := parseHost(pattern, true)
	if err != nil {
		return "", hostPatternError(pattern, err)
	}
	return h, nil
}

// wildcardHost normalises a host pattern holding "*": like parseHost, but
// without reading IPv4 numbers, and refusing "*" inside an IDNA label.
func wildcardHost(s string) (string, error) {
	if s[0] == '[' {
		return "", &hostError{0, "an IPv6 address cannot hold a wildcard"}
	}
	ascii, err := domainToASCII(s, true)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(ascii, ".") {
		if strings.HasPrefix(l, "xn--") && strings.IndexByte(l, '*') >= 0 {
			return "", &hostError{-1, fmt.Sprintf("a wildcard cannot stand inside an internationalised label (%q)", l)}
		}
	}
	h, _, err := finishDomain(ascii, true)
	return h, err
}

// hostPatternError turns a host error into a PatternError, pointing at the
// first forbidden character of the pattern when there is one.
func hostPatternError(pattern string, err error) error {
	off := 0
	var he *hostError
	if errors.As(err, &he) && he.at >= 0 {
		off = he.at
	} else {
		for i := 0; i < len(pattern); i++ {
			if c := pattern[i]; forbiddenDomain(c) && c != '[' && c != ']' && c != ':' {
				off = i
				break
			}
		}
	}
	if errors.Is(err, errNoHost) {
		return &PatternError{0, fmt.Sprintf("pattern %q names no host", pattern)}
	}
	return &PatternError{off, err.Error()}
}

// Match reports whether host matches the pattern, ignoring ASCII case and
// trailing dots. host should be one of [Target.Hosts]: Match does not
// normalise IDNA or IP address spellings.
func (d *Domain) Match(host string) bool {
	h := trimDots(host)
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return false
	}
	if d.any {
		return true
	}
	if d.ipv4 && !isDottedQuad(h) {
		return false
	}
	more := true // h still holds a label, possibly empty
	for _, l := range d.labels {
		if !more {
			return false
		}
		var label string
		if k := strings.LastIndexByte(h, '.'); k >= 0 {
			label, h = h[k+1:], h[:k]
		} else {
			label, h, more = h, "", false
		}
		if l.glob {
			if !globMatch(l.text, label, true) {
				return false
			}
		} else if !equalFoldASCII(l.text, label) {
			return false
		}
	}
	return more == d.sub
}

// isIPv4Pattern reports whether labels are four of digits and "*", like
// "10.0.0.*", which must not match a domain such as "10.0.0.com".
func isIPv4Pattern(labels []string) bool {
	if len(labels) != 4 {
		return false
	}
	for _, l := range labels {
		for i := 0; i < len(l); i++ {
			if c := l[i]; c != '*' && (c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// isDottedQuad reports whether h is four dot-separated runs of digits, the
// form Parse gives IPv4 addresses.
func isDottedQuad(h string) bool {
	dots := 0
	run := 0
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '.':
			if run == 0 {
				return false
			}
			dots, run = dots+1, 0
		case c >= '0' && c <= '9':
			run++
		default:
			return false
		}
	}
	return dots == 3 && run > 0
}

// String returns the normalised pattern.
func (d *Domain) String() string { return d.text }

// equalFoldASCII reports whether s equals the lowercase ASCII text lower,
// ignoring the case of ASCII letters in s.
func equalFoldASCII(lower, s string) bool {
	if len(lower) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// globMatch reports whether s matches p, in which "*" stands for any run of
// bytes. With fold, ASCII letters of s match regardless of case; p must
// then be lowercase.
func globMatch(p, s string, fold bool) bool {
	px, sx := 0, 0
	nextPx, nextSx := 0, 0
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			c := p[px]
			if c == '*' {
				nextPx, nextSx = px, sx+1
				px++
				continue
			}
			if sx < len(s) {
				d := s[sx]
				if fold && d >= 'A' && d <= 'Z' {
					d += 'a' - 'A'
				}
				if c == d {
					px++
					sx++
					continue
				}
			}
		}
		if 0 < nextSx && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}
