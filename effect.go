package toolgate

import "fmt"

// Effect names a rule list: allow, deny or ask.
type Effect uint8

// The rule lists.
const (
	EffectAllow Effect = iota + 1
	EffectDeny
	EffectAsk
)

// String returns "allow", "deny" or "ask".
func (e Effect) String() string {
	switch e {
	case EffectAllow:
		return "allow"
	case EffectDeny:
		return "deny"
	case EffectAsk:
		return "ask"
	}
	return "invalid"
}

// MarshalText implements encoding.TextMarshaler: allow, deny or ask.
func (e Effect) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it reads "allow",
// "deny" or "ask" ("interactive" is an alias of ask).
func (e *Effect) UnmarshalText(b []byte) error { return unmarshalWith(e, b, parseEffect) }

func parseEffect(s string) (Effect, error) {
	switch s {
	case "allow":
		return EffectAllow, nil
	case "deny":
		return EffectDeny, nil
	case "ask", "interactive":
		return EffectAsk, nil
	}
	return 0, fmt.Errorf("unknown rule list %q (want allow, deny or ask)", s)
}
