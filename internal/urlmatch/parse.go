package urlmatch

import (
	"unsafe"

	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Target is a URL as the engine sees it: every reading of its host and of
// the URL itself that a fetching tool might act on.
//
// A deny or ask rule matches a Target if it matches any reading (Hosts, URLs
// or AltURLs); an allow rule matches only if it matches every entry of Hosts
// (for a domain rule) or of URLs (for a URL rule).
type Target struct {
	// Raw is the URL as given.
	Raw string

	// Hosts holds the readings of the host: the WHATWG reading first, then
	// Go's net/url reading if it differs. Each is lowercase ASCII without a
	// trailing dot; an IPv4 address is in dotted decimal (an IPv4-mapped IPv6
	// address included), an IPv6 address canonical and without brackets.
	// After an error, Hosts holds whatever could be read, which need not be
	// a valid host.
	Hosts []string

	// URLs holds the serialisations that URL patterns are matched against:
	// the WHATWG serialisation without userinfo, with the host normalised as
	// in Hosts and a default port removed; then the net/url reading's
	// serialisation, normalised the same way, if it differs.
	URLs []string

	// AltURLs holds extra readings for deny and ask rules only: each of URLs
	// with http and https swapped (and the default port of the new scheme
	// removed), and each of those without its fragment, which is never sent
	// to a server. Entries already in URLs are not repeated.
	AltURLs []string
}

var errNoScheme = errors.New("not an absolute URL: it has no scheme (like https://)")

// schemeError is the error for a URL whose scheme is not http or https.
func schemeError(scheme string) error {
	return fmt.Errorf("only http and https URLs can be allowed, not %q", scheme+":")
}

// Parse reads raw as a WHATWG URL parser and Go's net/url would, and returns
// every reading it finds.
//
// The error is non-nil when raw is not an absolute URL by the WHATWG rules,
// has no host, uses a scheme other than http or https, or has a host that
// one of the parsers reads and the other cannot. Such a URL can only be
// denied or asked about; Parse still returns the readings it could make so
// that deny rules see them.
func Parse(raw string) (Target, error) {
	t, err := parse(raw, new([3]string))
	t.AltURLs = appendAltURLs(t.AltURLs, t.URLs)
	return t, err
}

// ParseLazy is Parse without the deny-only AltURLs, which it leaves nil:
// callers that need them compute them with [AltURLsOf] when a rule asks.
func ParseLazy(raw string) (Target, error) { return parse(raw, new([3]string)) }

// ParseLazyInto is ParseLazy with the backing array of the usual one entry
// of each list given by the caller, who reuses it: the Target (its slices,
// not the strings in them) must not be used once buf is given to another
// parse.
func ParseLazyInto(raw string, buf *[3]string) (Target, error) {
	*buf = [3]string{}
	return parse(raw, buf)
}

// AltURLsOf returns the deny-only variants of urls that [Parse] puts in
// Target.AltURLs.
func AltURLsOf(urls []string) []string { return appendAltURLs(nil, urls) }

func parse(raw string, lists *[3]string) (Target, error) {
	// lists backs the usual one entry of each list; appending more
	// reallocates instead of overwriting the neighbour.
	t := Target{Raw: raw, Hosts: lists[0:0:1], URLs: lists[1:1:2], AltURLs: lists[2:2:3]}
	u, err := parseWHATWG(raw)
	switch {
	case u.host != "":
		t.Hosts = append(t.Hosts, u.host)
	case u.hostText != "":
		t.addHost(bestEffortHost(u.hostText))
	}
	if u.complete {
		t.URLs = append(t.URLs, u.serialiseFrom(raw))
	}

	var gerr error
	if err != nil || !u.complete || u.host == "" || !plainURL(raw) {
		gerr = t.addGoReading(raw, u.scheme)
		if rerr := t.addRFCReading(raw, u.host); gerr == nil {
			gerr = rerr
		}
	}

	if u.host == "" && (errors.Is(err, errNoScheme) || u.opaque) {
		// "example.com/x" or "localhost:8080": deny rules should still see
		// the host a lenient client would guess.
		if g, _ := parseWHATWG("http://" + trimControlSpace(raw)); g.host != "" {
			t.addHost(g.host)
		}
	}

	if err == nil {
		err = gerr
	}
	return t, err
}

// addHost appends h to t.Hosts unless it is empty or already there.
func (t *Target) addHost(h string) {
	if h != "" && !contains(t.Hosts, h) {
		t.Hosts = append(t.Hosts, h)
	}
}

// addGoReading adds the host and URL that net/url reads, when they differ
// from the WHATWG ones. It returns an error when net/url reads a host that
// cannot be normalised or a scheme other than http or https.
func (t *Target) addGoReading(raw, whatwgScheme string) error {
	gu, err := url.Parse(raw)
	if err != nil {
		// net/url refuses the URL. A Go client could not fetch it, but
		// another client reads it its own way (see addRFCReading): the two
		// parsers do not agree on what it names, so it cannot be allowed.
		return fmt.Errorf("the Go net/url parser rejects the URL (%v), so its readings disagree", unwrapURLError(err))
	}
	if gu.Host == "" {
		// "https:docs.example.com/x", "https:/docs.example.com": WHATWG
		// finds a host, net/url reads a path with no host. What such a URL
		// names depends on the client.
		return errors.New("the Go net/url parser reads no host in the URL, so its readings disagree")
	}
	gh := gu.Hostname()
	var host string
	var ipv6 bool
	if strings.IndexByte(gh, ':') >= 0 {
		host, ipv6, err = parseHost("["+gh+"]", false)
	} else {
		host, ipv6, err = parseHost(gh, false)
	}
	if err != nil {
		t.addHost(bestEffortHost(gh))
		return fmt.Errorf("the Go net/url parser reads the host as %q, which is not a valid host: %v", gh, err)
	}
	t.addHost(host)
	if gu.Scheme != "http" && gu.Scheme != "https" {
		if gu.Scheme != whatwgScheme {
			return schemeError(gu.Scheme)
		}
		return nil // the WHATWG reading reports the scheme already
	}

	v := *gu
	v.User = nil
	v.Host = hostForURL(host, ipv6)
	if p := normalisePort(gu.Port(), gu.Scheme); p != "" {
		v.Host += ":" + p
	}
	if v.Path == "" && v.Opaque == "" {
		v.Path, v.RawPath = "/", ""
	}
	if s := v.String(); !contains(t.URLs, s) {
		t.URLs = append(t.URLs, s)
	}
	return nil
}

// unwrapURLError returns the reason inside a *url.Error, without the URL
// text it repeats.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// addRFCReading adds the host that a plain RFC 3986 reader finds — the
// authority runs from "//" to the first "/", "?" or "#" (a backslash is an
// ordinary character), the userinfo ends at its last "@" — as Python's
// urllib and many HTTP libraries read it. For
// "https://docs.example.com\@evil.example/" that host is evil.example,
// while the WHATWG reading is docs.example.com. When the reading finds a
// host other than whatwgHost, it is added for deny rules and an error is
// returned: such a URL can only be denied or asked about.
func (t *Target) addRFCReading(raw, whatwgHost string) error {
	s := removeTabNewline(trimControlSpace(raw))
	n := schemeLen(s)
	if n < 0 {
		return nil
	}
	rest, ok := strings.CutPrefix(s[n+1:], "//")
	if !ok {
		return nil // no authority: net/url's reading covers it
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = rest[at+1:]
	}
	hostText, _ := splitHostPort(rest)
	if hostText == "" {
		return nil
	}
	// Percent-decoded as a browser would: the reading differs in where the
	// authority ends, not in how the host is spelled.
	host, _, err := parseHost(hostText, true)
	if err != nil {
		host = bestEffortHost(hostText)
	}
	if host == whatwgHost {
		return nil
	}
	t.addHost(host)
	return fmt.Errorf("an RFC 3986 reader takes the host as %q, not %q as a browser does", host, whatwgHost)
}

// normalisePort drops leading zeros and a default port; a port that is
// not a number in range comes back unchanged.
func normalisePort(port, scheme string) string {
	if port == "" {
		return ""
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return port
	}
	if int(n) == defaultPort(scheme) {
		return ""
	}
	return strconv.FormatUint(n, 10)
}

// bestEffortHost makes what it can of host text that did not parse.
func bestEffortHost(s string) string {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	return trimDots(asciiLower(s))
}

// appendAltURLs appends the deny-only variants of urls to alt: http and
// https swapped, and the fragment removed.
func appendAltURLs(alt, urls []string) []string {
	add := func(s string) {
		if !contains(urls, s) && !contains(alt, s) {
			alt = append(alt, s)
		}
	}
	for _, u := range urls {
		var swapped string
		switch {
		case strings.HasPrefix(u, "https://"):
			swapped = "http://" + u[len("https://"):]
		case strings.HasPrefix(u, "http://"):
			swapped = "https://" + u[len("http://"):]
		}
		forms := [3]string{u, swapped, dropDefaultPort(swapped)}
		for i, f := range forms {
			if f == "" || (i == 2 && f == swapped) {
				continue
			}
			if i > 0 {
				add(f)
			}
			if j := strings.IndexByte(f, '#'); j >= 0 {
				add(f[:j])
			}
		}
	}
	return alt
}

// dropDefaultPort removes ":80" from an http URL and ":443" from an https
// one. u is a serialisation without userinfo.
func dropDefaultPort(u string) string {
	var suffix string
	var rest string
	switch {
	case strings.HasPrefix(u, "http://"):
		suffix, rest = ":80", u[len("http://"):]
	case strings.HasPrefix(u, "https://"):
		suffix, rest = ":443", u[len("https://"):]
	default:
		return u
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if !strings.HasSuffix(rest[:end], suffix) {
		return u
	}
	cut := len(u) - len(rest) + end
	return u[:cut-len(suffix)] + u[cut:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// whatwgURL is the result of parseWHATWG, filled in as far as parsing got.
type whatwgURL struct {
	scheme   string // lowercase
	opaque   bool   // a scheme whose URLs are not read like http(s) URLs
	hostText string // the host as written, once the authority was found
	host     string // the normalised host, once it parsed
	ipv6     bool
	port     string // decimal; "" when absent or the scheme's default
	rest     string // the input after the authority: path, query, fragment
	complete bool   // every part parsed
}

// isSpecial reports whether scheme is a WHATWG special scheme, whose URLs
// always have an authority and take "\" as "/".
func isSpecial(scheme string) bool {
	switch scheme {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}

// defaultPort returns the default port of a special scheme, or -1.
func defaultPort(scheme string) int {
	switch scheme {
	case "http", "ws":
		return 80
	case "https", "wss":
		return 443
	case "ftp":
		return 21
	}
	return -1
}

// parseWHATWG reads raw with the WHATWG URL parsing rules for http(s).
// Other special schemes are read the same way; other schemes only when an
// authority ("//") follows the colon. The error says why the URL cannot be
// allowed; the result holds what was read before it.
func parseWHATWG(raw string) (whatwgURL, error) {
	var u whatwgURL
	s := removeTabNewline(trimControlSpace(raw))

	n := schemeLen(s)
	if n < 0 {
		return u, errNoScheme
	}
	u.scheme = asciiLower(s[:n])
	rest := s[n+1:]
	var schemeErr error
	if u.scheme != "http" && u.scheme != "https" {
		schemeErr = schemeError(u.scheme)
	}
	if !isSpecial(u.scheme) || u.scheme == "file" {
		// Read only what follows "//", and only for deny rules' sake.
		u.opaque = true
		if !strings.HasPrefix(rest, "//") {
			return u, schemeErr
		}
		rest = rest[2:]
	} else {
		// Special authority slashes: any run of "/" and "\" is skipped, so
		// "https:evil.com" and "https:\\\evil.com" both name evil.com.
		rest = strings.TrimLeft(rest, `/\`)
	}
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	u.rest = rest[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:] // userinfo is everything before the last "@"
	}
	hostText, portText := splitHostPort(auth)
	u.hostText = hostText
	if hostText == "" {
		return u, firstErr(schemeErr, errNoHost)
	}
	var err error
	u.host, u.ipv6, err = parseHost(hostText, true)
	if err != nil {
		return u, firstErr(schemeErr, err)
	}
	if portText != "" {
		p, ok := parsePort(portText)
		if !ok {
			return u, firstErr(schemeErr, fmt.Errorf("invalid port %q", portText))
		}
		if p != defaultPort(u.scheme) {
			u.port = strconv.Itoa(p)
		}
	}
	u.complete = true
	return u, schemeErr
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// serialiseFrom is serialise for a URL parsed from raw: when raw is
// already its own serialisation — the usual case, a lowercase host, no
// userinfo, no default port, nothing to escape — it returns raw itself and
// allocates nothing.
func (u *whatwgURL) serialiseFrom(raw string) string {
	var buf [256]byte
	if n := len(u.scheme) + 3 + len(u.host) + len(u.port) + 3 + len(u.rest); n <= len(buf) {
		if b := u.appendSerialised(buf[:0]); string(b) == raw {
			return raw
		}
	}
	return u.serialise()
}

// serialise returns the URL as a WHATWG parser serialises it, without
// userinfo and with the host normalised.
func (u *whatwgURL) serialise() string {
	b := u.appendSerialised(make([]byte, 0, len(u.scheme)+3+len(u.host)+len(u.port)+len(u.rest)+8))
	// b is never written again: the string may share its memory.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendSerialised appends the serialisation of u to b.
func (u *whatwgURL) appendSerialised(b []byte) []byte {
	b = append(b, u.scheme...)
	b = append(b, "://"...)
	if u.ipv6 {
		b = append(b, '[')
		b = append(b, u.host...)
		b = append(b, ']')
	} else {
		b = append(b, u.host...)
	}
	if u.port != "" {
		b = append(b, ':')
		b = append(b, u.port...)
	}
	return appendPathQueryFragment(b, u.rest)
}

func hostForURL(host string, ipv6 bool) string {
	if ipv6 {
		return "[" + host + "]"
	}
	return host
}

// schemeLen returns the length of the scheme of s, or -1 if s does not
// start with one followed by ":".
func schemeLen(s string) int {
	if s == "" || !isAlpha(s[0]) {
		return -1
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i
		case isAlpha(c), c >= '0' && c <= '9', c == '+', c == '-', c == '.':
		default:
			return -1
		}
	}
	return -1
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// splitHostPort splits an authority (without userinfo) at the first ":"
// outside brackets.
func splitHostPort(auth string) (host, port string) {
	inBrackets := false
	for i := 0; i < len(auth); i++ {
		switch auth[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				return auth[:i], auth[i+1:]
			}
		}
	}
	return auth, ""
}

// parsePort reads a port of ASCII digits, at most 65535.
func parsePort(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, false
		}
	}
	return n, true
}

// trimControlSpace removes leading and trailing C0 controls and spaces.
func trimControlSpace(s string) string {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// removeTabNewline removes every tab, line feed and carriage return.
func removeTabNewline(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && c != '\n' && c != '\r' {
			b = append(b, c)
		}
	}
	return string(b)
}

// An escapeSet is a set of ASCII bytes to percent-encode, as a bitmask.
type escapeSet [2]uint64

func makeEscapeSet(chars string) escapeSet {
	var s escapeSet
	for c := range byte(0x20) {
		s[0] |= 1 << c // C0 controls
	}
	s[1] |= 1 << (0x7f - 64) // DEL; bytes above 0x7F are always encoded
	for i := 0; i < len(chars); i++ {
		c := chars[i]
		s[c/64] |= 1 << (c % 64)
	}
	return s
}

func (s *escapeSet) has(c byte) bool {
	return c >= 0x80 || s[c/64]&(1<<(c%64)) != 0
}

// Percent-encode sets of the WHATWG URL standard: each includes the C0
// control percent-encode set (below 0x20 and above 0x7E).
var (
	fragmentSet = makeEscapeSet(" \"<>`")
	querySet    = makeEscapeSet(" \"#<>'") // the special-query set, for http(s)
	pathSet     = makeEscapeSet(" \"#<>?^`{}")
)

// appendEscaped appends s, percent-encoding the bytes in set.
func appendEscaped(b []byte, s string, set *escapeSet) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if set.has(c) {
			b = append(b, '%', hex[c>>4], hex[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

// appendPathQueryFragment serialises what follows the authority of a
// special URL: the path with "\" as "/" and dot segments resolved, then
// the query and the fragment, percent-encoded as the WHATWG parser does.
func appendPathQueryFragment(b []byte, s string) []byte {
	start := len(b)
	i := 0
	if i < len(s) && (s[i] == '/' || s[i] == '\\') {
		i++
	}
	for {
		j := i
		for j < len(s) && s[j] != '/' && s[j] != '\\' && s[j] != '?' && s[j] != '#' {
			j++
		}
		seg := s[i:j]
		slash := j < len(s) && (s[j] == '/' || s[j] == '\\')
		switch {
		case isDoubleDot(seg):
			if k := lastSlash(b[start:]); k >= 0 {
				b = b[:start+k]
			}
			if !slash {
				b = append(b, '/')
			}
		case isSingleDot(seg):
			if !slash {
				b = append(b, '/')
			}
		default:
			b = append(b, '/')
			b = appendEscaped(b, seg, &pathSet)
		}
		if !slash {
			i = j
			break
		}
		i = j + 1
	}
	if i < len(s) && s[i] == '?' {
		j := strings.IndexByte(s[i:], '#')
		if j < 0 {
			j = len(s) - i
		}
		b = append(b, '?')
		b = appendEscaped(b, s[i+1:i+j], &querySet)
		i += j
	}
	if i < len(s) && s[i] == '#' {
		b = append(b, '#')
		b = appendEscaped(b, s[i+1:], &fragmentSet)
	}
	return b
}

func lastSlash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return i
		}
	}
	return -1
}

func isSingleDot(seg string) bool {
	return seg == "." || strings.EqualFold(seg, "%2e")
}

func isDoubleDot(seg string) bool {
	switch len(seg) {
	case 2:
		return seg == ".."
	case 4:
		return strings.EqualFold(seg, ".%2e") || strings.EqualFold(seg, "%2e.")
	case 6:
		return strings.EqualFold(seg, "%2e%2e")
	}
	return false
}

// plainURL reports whether raw is so plain that net/url and the WHATWG
// parser cannot read it differently: a lowercase http or https scheme, a
// host of lowercase letters, digits, dots and hyphens whose last label
// starts with a letter, an optional numeric port, and a path and query of
// unreserved and sub-delimiter characters with no dot segments, percent
// signs, backslashes, "@" or fragment. Parse skips the second reading for
// such URLs.
func plainURL(raw string) bool {
	var rest string
	switch {
	case strings.HasPrefix(raw, "https://"):
		rest = raw[len("https://"):]
	case strings.HasPrefix(raw, "http://"):
		rest = raw[len("http://"):]
	default:
		return false
	}
	i := 0
	labelStart := 0
	for i < len(rest) {
		c := rest[i]
		if c == '.' {
			if i == labelStart {
				return false // empty label
			}
			labelStart = i + 1
		} else if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			break
		}
		i++
	}
	if i == 0 || labelStart >= i || rest[labelStart] < 'a' || rest[labelStart] > 'z' {
		return false // no host, a trailing dot, or a numeric last label
	}
	if i < len(rest) && rest[i] == ':' {
		j := i + 1
		for j < len(rest) && '0' <= rest[j] && rest[j] <= '9' {
			j++
		}
		if j == i+1 || j-i > 6 {
			return false
		}
		if n, err := strconv.Atoi(rest[i+1 : j]); err != nil || n > 65535 {
			return false
		}
		i = j
	}
	if i == len(rest) {
		return true
	}
	if rest[i] != '/' {
		return false
	}
	p := rest[i:]
	if strings.Contains(p, "/.") {
		return false
	}
	for k := 0; k < len(p); k++ {
		c := p[k]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~/!$&()*+,;=:?", c) >= 0:
		default:
			return false
		}
	}
	return true
}
