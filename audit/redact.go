package audit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Redactor returns a copy of a tool's input that is safe to store: secrets
// masked. It must not modify input, must return valid JSON, and must be safe
// for concurrent use. A Redactor that panics or returns invalid JSON makes
// the gate store a placeholder instead of the input.
type Redactor func(tool string, input json.RawMessage) json.RawMessage

// Redacted is the value that replaces a secret.
const Redacted = "[REDACTED]"

// secretKeyParts are substrings that make a key look secret, after folding
// case and dropping '-', '_' and '.'.
var secretKeyParts = []string{
	"password", "passwd", "passphrase", "secret", "token", "apikey",
	"authorization", "credential", "privatekey", "accesskey", "cookie",
	"sessionid", "clientsecret", "signature",
}

// secretInText finds secrets inside string values: an authorization header,
// key=value or key: value pairs with secret-looking keys.
var secretInText = regexp.MustCompile(`(?i)(\b(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}|(\b[A-Za-z0-9_-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key)[A-Za-z0-9_-]*\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s'"&;]+)`)

// SecretKey reports whether an object key looks like it holds a secret
// (password, token, secret, api_key, authorization, …).
func SecretKey(key string) bool {
	k := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(key))
	for _, p := range secretKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}

// DefaultRedactor masks the values of object keys that look secret
// ([SecretKey]), at any depth, and secrets written inside strings (an
// "Authorization: Bearer …" header, "password=…"). Input that is not valid
// JSON is replaced whole by the string "[REDACTED]".
func DefaultRedactor(_ string, input json.RawMessage) json.RawMessage {
	if len(input) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(input))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	changed := false
	v = redactValue(v, &changed)
	if !changed {
		return append(json.RawMessage(nil), input...)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	return out
}

func redactValue(v any, changed *bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if SecretKey(k) {
				if s, ok := val.(string); !ok || s != "" {
					x[k] = Redacted
					*changed = true
				}
				continue
			}
			x[k] = redactValue(val, changed)
		}
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], changed)
		}
	case string:
		if secretInText.MatchString(x) {
			*changed = true
			return secretInText.ReplaceAllStringFunc(x, func(m string) string {
				sub := secretInText.FindStringSubmatch(m)
				if sub[1] != "" {
					return sub[1] + Redacted
				}
				return sub[2] + Redacted
			})
		}
	}
	return v
}
