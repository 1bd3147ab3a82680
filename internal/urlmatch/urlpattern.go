package urlmatch

import (
	"fmt"
	"strconv"
	"strings"
)

// URLPattern is a compiled glob over a normalised URL, such as
// "https://api.example.com/v1/*", in which "*" stands for any run of
// characters, "/" included. It is immutable and safe for concurrent use.
//
// A "*" before the path (in the scheme, host or port) never crosses into
// the path: "https://*.example.com/*" does not match
// "https://evil.com/x.example.com/".
type URLPattern struct {
	text string // the normalised pattern
	auth string // the glob for scheme://host[:port], lowercase when fold
	rest string // the glob for path, query and fragment, lowercase when fold
	host string // the host, when it holds no wildcard (see IndexHost)
	tail string // else its rightmost labels without a wildcard (see IndexHostSuffix)
	fold bool
}

// CompileURL compiles a URL pattern. fold makes matching ignore ASCII case,
// as deny and ask rules do.
//
// The scheme, host and port are normalised as [Parse] normalises a URL:
// scheme and host lowercase, the host mapped to ASCII with IDNA and without
// trailing dots, IP addresses canonical, a default port removed. The path,
// query and fragment are percent-encoded and their dot segments resolved as
// in a parsed URL, and a pattern with nothing after the host gets the path
// "/". A "*" in the host stays a wildcard; a port may be "*". Userinfo is an
// error, since URLs are matched without it and the pattern could never
// match.
func CompileURL(pattern string, fold bool) (*URLPattern, error) {
	i := strings.Index(pattern, "://")
	if i <= 0 {
		return nil, &PatternError{0, fmt.Sprintf("URL pattern %q must start with a scheme and \"://\", like https://", pattern)}
	}
	scheme := pattern[:i]
	for j := 0; j < len(scheme); j++ {
		c := scheme[j]
		if !(isAlpha(c) || c == '*' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return nil, &PatternError{j, fmt.Sprintf("invalid character %q in the scheme of URL pattern %q", c, pattern)}
		}
	}
	scheme = asciiLower(scheme)

	start := i + len("://")
	rest := pattern[start:]
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	if at := strings.IndexByte(auth, '@'); at >= 0 {
		return nil, &PatternError{start + at, fmt.Sprintf("URL pattern %q has user information, but URLs are matched without it; remove the part up to \"@\"", pattern)}
	}
	hostText, portText := splitHostPort(auth)
	if hostText == "" {
		return nil, &PatternError{start, fmt.Sprintf("URL pattern %q has no host", pattern)}
	}
	var host string
	var ipv6 bool
	var err error
	if strings.IndexByte(hostText, '*') >= 0 {
		host, err = wildcardHost(hostText)
	} else {
		host, ipv6, err = parseHost(hostText, true)
	}
	if err != nil {
		pe := hostPatternError(hostText, err).(*PatternError)
		pe.Offset += start
		return nil, pe
	}

	b := make([]byte, 0, len(pattern)+8)
	b = append(b, scheme...)
	b = append(b, "://"...)
	b = append(b, hostForURL(host, ipv6)...)
	if len(auth) > len(hostText) { // a ":" follows the host
		switch p, ok := parsePort(portText); {
		case portText == "":
		case portText == "*":
			b = append(b, ":*"...)
		case !ok:
			return nil, &PatternError{start + len(hostText) + 1, fmt.Sprintf("invalid port %q in URL pattern %q", portText, pattern)}
		case p != defaultPort(scheme):
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(p), 10)
		}
	}
	n := len(b)
	if tail := rest[end:]; tail != "" {
		b = appendPathQueryFragment(b, tail)
	} else if b[len(b)-1] != '*' {
		b = append(b, '/')
	}

	p := &URLPattern{text: string(b), fold: fold}
	if !strings.Contains(host, "*") {
		p.host = host
	} else if !ipv6 {
		labels := strings.Split(host, ".")
		n := len(labels)
		for n > 0 && labels[n-1] != "" && !strings.Contains(labels[n-1], "*") {
			n--
		}
		p.tail = strings.Join(labels[n:], ".")
	}
	p.auth, p.rest = p.text[:n], p.text[n:]
	if p.rest == "" {
		p.rest = "*" // "https://example.com*": the final "*" covers the path
	}
	if fold {
		p.auth, p.rest = asciiLower(p.auth), asciiLower(p.rest)
	}
	return p, nil
}

// Match reports whether url, one of [Target.URLs] or [Target.AltURLs],
// matches the pattern.
func (p *URLPattern) Match(url string) bool {
	auth, rest := url, ""
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			auth, rest = url[:i+3+j], url[i+3+j:]
		}
	}
	return globMatch(p.auth, auth, p.fold) && globMatch(p.rest, rest, p.fold)
}

// String returns the normalised pattern.
func (p *URLPattern) String() string { return p.text }

// IndexHost returns the one host the pattern can match, for indexing: its
// host when it holds no wildcard, as [Target.Hosts] writes hosts
// (lowercase ASCII, an IPv6 address without brackets); "" otherwise. A
// URL of a [Target] matches the pattern only if that host is among the
// Target's Hosts: a wildcard in the scheme or port never reaches the host,
// since the URL's authority is matched on its own.
func (p *URLPattern) IndexHost() string { return p.host }

// IndexHostSuffix returns, for a pattern whose host holds a wildcard, what
// every host it matches ends with: the host's rightmost labels up to the
// first one with a wildcard ("example.com" for "https://*.example.com/*"),
// in the form [HostSuffixes] gives a host's label suffixes. It is "" when
// IndexHost is set, or when nothing follows the last wildcard.
func (p *URLPattern) IndexHostSuffix() string { return p.tail }
