package serve

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/toolgate/toolgate"
)

// appendResponse appends the JSON of r to b, byte for byte as json.Marshal
// encodes it: the fields in the order of response, omitempty as tagged,
// strings escaped as encoding/json escapes them (HTML-safe, invalid UTF-8
// as \ufffd, U+2028 and U+2029 escaped). Every decision is encoded, so
// doing it without reflection, interface boxing and the encoder's state
// saves a decision a good part of its CPU time. TestResponseFields fails
// when response, approvalRef or toolgate.Reason gain a field this does not
// write; FuzzAppendResponse compares it with json.Marshal.
//
// The only error is an Input that is not valid JSON (json.Marshal fails
// then too); b is then returned as it was.
func appendResponse(b []byte, r *response) ([]byte, error) {
	start := len(b)
	b = append(b, `{"decision":`...)
	b = appendJSONString(b, r.Decision)
	if len(r.Input) > 0 {
		// Rare (modify, ask): json.Marshal compacts and escapes it.
		in, err := json.Marshal(r.Input)
		if err != nil {
			return b[:start], err
		}
		b = append(b, `,"input":`...)
		b = append(b, in...)
	}
	b = append(b, `,"reason":`...)
	b = appendReason(b, &r.Reason)
	b = append(b, `,"reasons":`...)
	if r.Reasons == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Reasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendReason(b, &r.Reasons[i])
		}
		b = append(b, ']')
	}
	if r.Prompt != "" {
		b = append(b, `,"prompt":`...)
		b = appendJSONString(b, r.Prompt)
	}
	if len(r.Suggestions) > 0 {
		b = append(b, `,"suggestions":[`...)
		for i, s := range r.Suggestions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		b = append(b, ']')
	}
	b = append(b, `,"revision":`...)
	b = appendJSONString(b, r.Revision)
	if a := r.Approval; a != nil {
		b = append(b, `,"approval":{"id":`...)
		b = appendJSONString(b, a.ID)
		b = append(b, `,"state":`...)
		b = appendJSONString(b, a.State)
		b = append(b, `,"expires":`...)
		b = appendJSONString(b, a.Expires)
		if a.URL != "" {
			b = append(b, `,"url":`...)
			b = appendJSONString(b, a.URL)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendReason appends the JSON of one reason (RuleID is not encoded).
func appendReason(b []byte, r *toolgate.Reason) []byte {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, string(r.Kind))
	for _, f := range [...]struct{ name, v string }{
		{`,"rule":`, r.Rule}, {`,"effect":`, r.Effect}, {`,"source":`, r.Source}, {`,"file":`, r.File},
	} {
		if f.v != "" {
			b = append(b, f.name...)
			b = appendJSONString(b, f.v)
		}
	}
	if r.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(r.Line), 10)
	}
	if r.Column != 0 {
		b = append(b, `,"column":`...)
		b = strconv.AppendInt(b, int64(r.Column), 10)
	}
	if r.Part != "" {
		b = append(b, `,"part":`...)
		b = appendJSONString(b, r.Part)
	}
	if r.Message != "" {
		b = append(b, `,"message":`...)
		b = appendJSONString(b, r.Message)
	}
	return append(b, '}')
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are in an
// HTML-safe string: from the space to DEL, but for " \ < > &.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string escaped exactly as
// encoding/json's HTML-safe encoding does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				// Other control characters, and < > & (HTML-safe).
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
