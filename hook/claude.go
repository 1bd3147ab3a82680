package hook

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate"
)

// Claude is Claude Code (verified against 2.1.332): a PreToolUse command
// hook in .claude/settings.json.
const Claude Client = "claude"

// clientModes are the permission modes Claude Code and Codex report.
var clientModes = map[string]toolgate.ModeName{
	"default":           toolgate.ModeDefault,
	"acceptEdits":       toolgate.ModeAcceptEdits,
	"plan":              toolgate.ModePlan,
	"dontAsk":           toolgate.ModeDontAsk,
	"bypassPermissions": toolgate.ModeBypassPermissions,
	"auto":              toolgate.ModeAuto,
}

// decodeClaudeLike reads Claude Code's and Codex's PreToolUse payload.
func (f fields) decodeClaudeLike(call *toolgate.Call, m *Meta, event string) error {
	if err := f.event(m, event); err != nil {
		return err
	}
	if err := f.toolAndInput(call, m); err != nil {
		return err
	}
	var err error
	if call.Cwd, err = f.cwd("cwd"); err != nil {
		return err
	}
	if call.Session, err = f.str("session_id", false); err != nil {
		return err
	}
	if call.Agent, err = f.str("agent_type", false); err != nil {
		return err
	}
	pm, err := f.str("permission_mode", false)
	if err != nil {
		return err
	}
	m.PermissionMode = pm
	if pm != "" {
		name, ok := clientModes[pm]
		if !ok {
			return fmt.Errorf("unknown permission_mode %q", pm)
		}
		call.Mode = &toolgate.Mode{Name: name}
	}
	srv, err := f.object("mcp_server", false)
	if err != nil {
		return err
	}
	if srv != nil {
		sf, err := readObject(srv)
		if err != nil {
			return fmt.Errorf("mcp_server: %v", err)
		}
		if call.Server, err = sf.str("name", true); err != nil {
			return fmt.Errorf("mcp_server: %v", err)
		}
	}
	return nil
}

type claudeOutput struct {
	HookSpecificOutput claudeSpecific `json:"hookSpecificOutput"`
}

type claudeSpecific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
}

func claudeAnswer(c Client, out toolgate.Outcome, reason string, d toolgate.Decision) claudeOutput {
	s := claudeSpecific{HookEventName: "PreToolUse", PermissionDecisionReason: reason}
	switch out {
	case toolgate.Allow:
		s.PermissionDecision = "allow"
		if c == Codex {
			s.PermissionDecisionReason = ""
		}
	case toolgate.Modify:
		s.PermissionDecision = "allow"
		s.UpdatedInput = rewrittenInput(out, d)
		if c == Codex {
			s.PermissionDecisionReason = ""
		}
	case toolgate.Ask:
		s.PermissionDecision = "ask"
		if d.Prompt != "" {
			s.PermissionDecisionReason = d.Prompt + "\n" + reason
		}
		s.UpdatedInput = rewrittenInput(out, d)
	default:
		s.PermissionDecision = "deny"
	}
	if out != toolgate.Allow && out != toolgate.Modify && s.PermissionDecisionReason == "" {
		s.PermissionDecisionReason = "toolgate: denied"
	}
	return claudeOutput{s}
}
