package toolgate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ModeName is a session mode's canonical name.
type ModeName string

// The session modes.
const (
	ModeDefault           ModeName = "default"
	ModeAcceptEdits       ModeName = "acceptEdits"
	ModePlan              ModeName = "plan"
	ModeDontAsk           ModeName = "dontAsk"
	ModeBypassPermissions ModeName = "bypassPermissions"
	ModeStrict            ModeName = "strict"
	ModeAuto              ModeName = "auto"
)

// Mode is a session-wide mode. For plan mode, PrePlan is the mode that was in
// force before planning and BypassAvailable says whether bypass was
// available; with BypassAvailable, plan mode does not deny writes.
type Mode struct {
	Name            ModeName
	PrePlan         ModeName
	BypassAvailable bool
}

// String returns the mode's name, or its JSON object form for a plan mode
// with pre-plan settings.
func (m Mode) String() string {
	if m.Name == ModePlan && (m.PrePlan != "" || m.BypassAvailable) {
		b, _ := json.Marshal(map[string]any{"pre_plan_mode": string(m.PrePlan), "bypass_available": m.BypassAvailable})
		return string(b)
	}
	if m.Name == "" {
		return string(ModeDefault)
	}
	return string(m.Name)
}

var modeNames = map[string]ModeName{
	"default":            ModeDefault,
	"acceptEdits":        ModeAcceptEdits,
	"plan":               ModePlan,
	"dontAsk":            ModeDontAsk,
	"bypassPermissions":  ModeBypassPermissions,
	"strict":             ModeStrict,
	"auto":               ModeAuto,
	"allow":              ModeDefault,
	"accept_edits":       ModeAcceptEdits,
	"bypass_permissions": ModeBypassPermissions,
	"dont_ask":           ModeDontAsk,
	"deny":               ModeDontAsk, // the legacy format reads it as strict (config)
	"interactive":        ModeDontAsk,
}

// UnmarshalText implements encoding.TextUnmarshaler: it reads a mode name
// or one of its accepted aliases (case-sensitive). The seed's aliases deny
// and interactive both mean dontAsk: ask becomes deny. Only the legacy
// seed-004 file format reads mode deny as strict, and its loader says so.
func (n *ModeName) UnmarshalText(b []byte) error { return unmarshalWith(n, b, parseModeName) }

func parseModeName(s string) (ModeName, error) {
	if n, ok := modeNames[s]; ok {
		return n, nil
	}
	return "", fmt.Errorf("unknown mode %q (want default, acceptEdits, plan, dontAsk, bypassPermissions, strict or auto)", s)
}

// UnmarshalText implements encoding.TextUnmarshaler: it reads a mode name,
// an alias (see [ModeName.UnmarshalText]), or the JSON object form of plan
// mode ({"pre_plan_mode": MODE, "bypass_available": BOOL}, camelCase keys
// also accepted; unknown keys are errors). Mode has no MarshalText: it
// encodes as its fields.
func (m *Mode) UnmarshalText(b []byte) error { return unmarshalWith(m, b, parseMode) }

func parseMode(s string) (Mode, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		return parsePlanObject([]byte(t))
	}
	n, err := parseModeName(s)
	if err != nil {
		return Mode{}, err
	}
	return Mode{Name: n}, nil
}

func parsePlanObject(b []byte) (Mode, error) {
	var raw map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&raw); err != nil {
		return Mode{}, fmt.Errorf("plan mode object: %v", err)
	}
	if d.More() {
		return Mode{}, fmt.Errorf("plan mode object: trailing data")
	}
	m := Mode{Name: ModePlan}
	seen := map[string]bool{}
	for k, v := range raw {
		switch k {
		case "pre_plan_mode", "prePlanMode":
			if seen["pre"] {
				return Mode{}, fmt.Errorf("plan mode object: %q given twice", k)
			}
			seen["pre"] = true
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return Mode{}, fmt.Errorf("plan mode object: %s must be a string", k)
			}
			n, err := parseModeName(s)
			if err != nil {
				return Mode{}, fmt.Errorf("plan mode object: %v", err)
			}
			m.PrePlan = n
		case "bypass_available", "bypassAvailable":
			if seen["bypass"] {
				return Mode{}, fmt.Errorf("plan mode object: %q given twice", k)
			}
			seen["bypass"] = true
			if err := json.Unmarshal(v, &m.BypassAvailable); err != nil {
				return Mode{}, fmt.Errorf("plan mode object: %s must be a boolean", k)
			}
		default:
			return Mode{}, fmt.Errorf("plan mode object: unknown key %q", k)
		}
	}
	return m, nil
}
