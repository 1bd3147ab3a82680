package urlmatch

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaProfile is UTS #46 ToASCII with the options the WHATWG URL standard
// uses for "domain to ASCII": non-transitional processing, no STD3 rules,
// no hyphen checks, joiner and bidi checks on, no DNS length checks.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
	idna.BidiRule(),
	idna.VerifyDNSLength(false),
)

var errNoHost = errors.New("URL has no host")

// hostError is a host that the WHATWG host parser rejects. At is the byte
// offset of the offending character in the host text when known, else -1.
type hostError struct {
	at  int
	msg string
}

func (e *hostError) Error() string { return e.msg }

// forbiddenDomain reports whether c is a WHATWG forbidden domain code point
// (the forbidden host code points, C0 controls, "%" and DEL).
func forbiddenDomain(c byte) bool {
	if c <= 0x20 || c == 0x7f {
		return true
	}
	switch c {
	case '#', '%', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

// parseHost reads the host of an http(s) URL as the WHATWG host parser does,
// and normalises it: lowercase ASCII, trailing dots removed, IPv4 in dotted
// decimal, IPv6 canonical and without brackets, IPv4-mapped IPv6 as IPv4.
// ipv6 reports whether the result is an IPv6 address.
//
// When decode is false the host is taken as already percent-decoded (Go's
// net/url reading), so a "%" left in it is an error rather than a second
// round of decoding.
func parseHost(s string, decode bool) (host string, ipv6 bool, err error) {
	if s == "" {
		return "", false, errNoHost
	}
	if s[0] == '[' {
		if len(s) < 2 || s[len(s)-1] != ']' {
			return "", false, &hostError{-1, fmt.Sprintf("IPv6 address %q has no closing bracket", s)}
		}
		return parseIPv6(s[1 : len(s)-1])
	}
	ascii, err := domainToASCII(s, decode)
	if err != nil {
		return "", false, err
	}
	return finishDomain(ascii, false)
}

// finishDomain takes a host already mapped to ASCII, rejects forbidden code
// points (except "*" when wildcard is set, which it always allows anyway),
// reads IPv4 numbers, and strips trailing dots.
func finishDomain(ascii string, wildcard bool) (string, bool, error) {
	if ascii == "" {
		return "", false, errNoHost
	}
	for i := 0; i < len(ascii); i++ {
		if forbiddenDomain(ascii[i]) {
			return "", false, &hostError{-1, fmt.Sprintf("host %q contains the forbidden character %q", ascii, ascii[i])}
		}
	}
	// Trailing dots go before the IPv4 check (WHATWG allows only one there),
	// so that "0.." is not the domain "0", which would read as 0.0.0.0.
	h := trimDots(ascii)
	if h == "" {
		return "", false, errNoHost
	}
	if !wildcard && endsInNumber(h) {
		v4, err := parseIPv4(h)
		if err != nil {
			return "", false, err
		}
		return v4, false, nil
	}
	return h, false, nil
}

// domainToASCII percent-decodes s (when asked to) and maps it to ASCII with UTS #46.
func domainToASCII(s string, decode bool) (string, error) {
	d := s
	if decode {
		d = percentDecode(s)
	}
	if isASCII(d) && !hasACELabel(d) {
		// UTS #46 maps ASCII (without STD3 rules) to lowercase and validates
		// nothing else, so the IDNA library is only needed for other input.
		return asciiLower(d), nil
	}
	if !utf8.ValidString(d) {
		return "", &hostError{-1, fmt.Sprintf("host %q is not valid UTF-8 after percent-decoding", d)}
	}
	a, err := idnaProfile.ToASCII(d)
	if err != nil {
		return "", &hostError{-1, fmt.Sprintf("host %q is not a valid internationalised domain name: %v", d, err)}
	}
	return a, nil
}

// parseIPv6 reads the text inside the brackets of an IPv6 host.
func parseIPv6(s string) (string, bool, error) {
	bad := func() (string, bool, error) {
		return "", false, &hostError{-1, fmt.Sprintf("invalid IPv6 address %q", s)}
	}
	if strings.IndexByte(s, '%') >= 0 || strings.IndexByte(s, ':') < 0 {
		return bad() // zones are not part of URLs; "[1.2.3.4]" is not IPv6
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return bad()
	}
	if a.Is4In6() {
		return a.Unmap().String(), false, nil
	}
	return a.String(), true, nil
}

// endsInNumber is the WHATWG "ends in a number" checker: the host is an IPv4
// address (or invalid) when its last label is a number.
func endsInNumber(s string) bool {
	s = strings.TrimSuffix(s, ".")
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	allDigits := true
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// ipv4Overflow is returned by parseIPv4Number for values above 2^32-1.
const ipv4Overflow = 1 << 32

// parseIPv4Number reads one part of an IPv4 address: decimal, "0x" hex or
// leading-zero octal. Values above 2^32-1 come back as ipv4Overflow.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if n < ipv4Overflow {
			n = n*base + d
			if n > ipv4Overflow {
				n = ipv4Overflow
			}
		}
	}
	return n, true
}

// parseIPv4 is the WHATWG IPv4 parser: one to four parts, the last of which
// fills the remaining bytes. It returns dotted decimal.
func parseIPv4(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", &hostError{-1, fmt.Sprintf("invalid IPv4 address %q: %s", s, why)}
	}
	t := s
	if strings.HasSuffix(t, ".") && len(t) > 1 {
		t = t[:len(t)-1]
	}
	var nums [4]uint64
	n := 0
	for {
		if n == 4 {
			return bad("more than four parts")
		}
		i := strings.IndexByte(t, '.')
		part := t
		if i >= 0 {
			part = t[:i]
		}
		v, ok := parseIPv4Number(part)
		if !ok {
			return bad(fmt.Sprintf("%q is not a number", part))
		}
		nums[n] = v
		n++
		if i < 0 {
			break
		}
		t = t[i+1:]
	}
	var addr uint64
	for i := 0; i < n-1; i++ {
		if nums[i] > 255 {
			return bad("a part is greater than 255")
		}
		addr |= nums[i] << (8 * (3 - i))
	}
	last := nums[n-1]
	if last >= 1<<(8*(5-n)) {
		return bad("the address is out of range")
	}
	addr |= last
	b := make([]byte, 0, 15)
	for i := 3; i >= 0; i-- {
		b = strconv.AppendUint(b, (addr>>(8*i))&0xff, 10)
		if i > 0 {
			b = append(b, '.')
		}
	}
	return string(b), nil
}

// percentDecode decodes %XX escapes; malformed escapes stay as they are.
func percentDecode(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasACELabel reports whether some label starts with "xn--", in any case.
func hasACELabel(s string) bool {
	for {
		if len(s) >= 4 && (s[0]|0x20) == 'x' && (s[1]|0x20) == 'n' && s[2] == '-' && s[3] == '-' {
			return true
		}
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
}

// asciiLower lowercases ASCII letters, allocating only when needed.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func trimDots(s string) string {
	for len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
