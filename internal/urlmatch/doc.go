// Package urlmatch reads URLs and matches them against the fetch rules of
// toolgate: `domain:` host patterns and URL globs.
//
// Everything here is a pure function of its arguments: nothing touches the
// network, and no name is ever resolved.
//
// # Readings
//
// A URL can be read more than one way, and a fetching tool might use any of
// them. [Parse] therefore returns every reading it can find:
//
//   - the host as a WHATWG URL parser (browsers, Node.js) reads it: tabs and
//     newlines removed, backslashes taken as slashes, userinfo before the last
//     "@" dropped, percent-decoding, IDNA (UTS #46) to ASCII, IPv4 addresses
//     in any spelling normalised to dotted decimal, IPv4-mapped IPv6 addresses
//     read as the IPv4 address;
//   - the host as Go's net/url reads it, when that differs;
//   - the host a plain RFC 3986 reader (Python's urllib, many HTTP
//     libraries) finds, whose authority ends only at "/", "?" or "#", when
//     that differs.
//
// A URL that net/url refuses or reads without a host, or whose readings
// name different hosts, is an error: the parsers disagree about what it
// names ("https://docs.example.com\@evil.example/", "https:docs.example.com").
//
// The caller lets a deny or ask rule match when any reading matches and an
// allow rule only when every reading matches. A URL that cannot be read at
// all, has no host, or uses a scheme other than http or https makes Parse
// return an error together with whatever it could read, so that deny rules
// still see it; such a URL must never be allowed by a rule.
//
// # Patterns
//
// [CompileDomain] compiles a host pattern: "example.com" is exact,
// "*.example.com" covers subdomains at any depth but not the apex, any other
// "*" stays inside one label ("api-*.example.com"), and "*" alone covers every
// host. [CompileURL] compiles a glob over the normalised URL, in which "*"
// stands for any run of characters.
//
// Redirects happen after the decision and are outside this package's reach:
// a URL that is allowed may still redirect elsewhere.
package urlmatch
