package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgate/toolgate"
)

// Claude is Claude Code (verified against 2.1.332): a PreToolUse command
// hook in .claude/settings.json.
const Claude Client = "claude"

// claude is Claude Code's [protocol].
type claude struct{}

func (claude) agent() string { return "Claude Code" }

func (claude) decode(f fields, call *toolgate.Call, m *Meta) error {
	return f.decodeClaudeLike(call, m, "PreToolUse")
}

func (claude) defaultAsk() AskPolicy { return AskAsk }

func (claude) canAsk(policy AskPolicy, m Meta) (bool, string) {
	if policy != AskAsk {
		return false, askPolicyDeny
	}
	switch m.PermissionMode {
	case "default", "acceptEdits", "plan":
		return true, ""
	case "bypassPermissions":
		return false, "in bypassPermissions mode Claude Code does not put a hook's question to a person: it would run the call or refuse it by its own rules"
	case "dontAsk":
		return false, "in dontAsk mode Claude Code asks nobody"
	case "auto":
		return false, "in auto mode Claude Code lets a classifier, not a person, answer a hook's question"
	case "":
		return false, "Claude Code did not say its permission mode, so it may not ask a person"
	}
	return false, fmt.Sprintf("Claude Code's permission mode %q is not known to ask a person", m.PermissionMode)
}

// cannotRewrite: Claude Code applies any rewritten input (updatedInput
// replaces the whole input).
func (claude) cannotRewrite(Meta, json.RawMessage) string { return "" }

func (claude) answer(out toolgate.Outcome, reason string, d toolgate.Decision, _ Meta) (any, string) {
	return claudeAnswer(out, reason, d), ""
}

func (claude) settingsPath(o InstallOptions) (string, error) {
	return o.settingsFile(ScopeProject, ".claude", "settings.json")
}

func (claude) edit(old []byte, o InstallOptions, install bool) ([]byte, error) {
	cmd := o.command(Claude)
	entry := commandEntry(cmd, 10)
	// A crash or timeout of the hook blocks the call instead of letting
	// it run.
	entry.set("onFailure", "block")
	return editJSON(old, install, func(_, hooks *object) (bool, error) {
		return editGroups(hooks, "PreToolUse", o.matcherOr("*"), cmd, entry, install)
	})
}

// settings reads Claude Code's managed, user, project and local settings; a
// disableAllHooks in any of them, or allowManagedHooksOnly in the managed
// settings, switches every hook off.
func (claude) settings(_ context.Context, st *Status, o StatusOptions) (string, bool) {
	ud := filepath.Join(o.Home, ".claude")
	if d := envValue(o.env(), "CLAUDE_CONFIG_DIR"); d != "" {
		ud = d
	}
	return fileSettings(st, Claude, jsonSettings{
		files: []settingsFile{{"/etc/claude-code/managed-settings.json", false}, {filepath.Join(ud, "settings.json"), false},
			{filepath.Join(o.Dir, ".claude", "settings.json"), true}, {filepath.Join(o.Dir, ".claude", "settings.local.json"), true}},
		off: func(f settingsFile, v map[string]any) string {
			if b, _ := v["disableAllHooks"].(bool); b {
				return f.path + " sets disableAllHooks: Claude Code runs no hook"
			}
			if b, _ := v["allowManagedHooksOnly"].(bool); b && strings.HasPrefix(f.path, "/etc/") {
				return f.path + " sets allowManagedHooksOnly: Claude Code runs only managed hooks"
			}
			return ""
		},
		commands: func(v map[string]any) []string { return groupCommands(v, "PreToolUse") },
	})
}

// probePayload is a Write of target in bypassPermissions mode, where nobody
// is asked.
func (claude) probePayload(dir, target, _ string) map[string]any {
	return preToolUseProbe(dir, "Write", map[string]any{"file_path": target, "content": "probe"})
}

func (claude) probeVerdict(stdout []byte) (string, string, error) { return claudeVerdict(stdout) }

// preToolUseProbe is a PreToolUse payload (Claude Code's, Codex's) for the
// probe call tool(input) in bypassPermissions mode.
func preToolUseProbe(dir, tool string, input map[string]any) map[string]any {
	return map[string]any{"session_id": "toolgate-probe", "hook_event_name": "PreToolUse", "cwd": dir,
		"permission_mode": "bypassPermissions", "tool_name": tool, "tool_input": input,
		"tool_use_id": "toolgate-probe"}
}

// claudeVerdict reads a PreToolUse answer (Claude Code's, Codex's).
func claudeVerdict(stdout []byte) (decision, reason string, err error) {
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return "", "", err
	}
	return out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason, nil
}

// clientModes are the permission modes Claude Code and Codex report.
var clientModes = map[string]toolgate.ModeName{
	"default":           toolgate.ModeDefault,
	"acceptEdits":       toolgate.ModeAcceptEdits,
	"plan":              toolgate.ModePlan,
	"dontAsk":           toolgate.ModeDontAsk,
	"bypassPermissions": toolgate.ModeBypassPermissions,
	"auto":              toolgate.ModeAuto,
}

// clientModeNames are the keys of clientModes.
var clientModeNames = slices.Sorted(maps.Keys(clientModes))

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
	pm, ok := f.literal("permission_mode", clientModeNames)
	if !ok {
		var err error
		if pm, err = f.str("permission_mode", false); err != nil {
			return err
		}
	}
	m.PermissionMode = pm
	if pm != "" {
		name, ok := clientModes[pm]
		if !ok {
			return fmt.Errorf("unknown permission_mode %q", pm)
		}
		call.Mode = &toolgate.Mode{Name: name}
	}
	sf, ok, err := f.sub("mcp_server")
	if err != nil {
		return err
	}
	if ok {
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

// claudeAnswer is the PreToolUse answer (Claude Code's, Codex's) to the
// resolved outcome out.
func claudeAnswer(out toolgate.Outcome, reason string, d toolgate.Decision) claudeOutput {
	s := claudeSpecific{HookEventName: "PreToolUse", PermissionDecisionReason: reason}
	switch out {
	case toolgate.Allow:
		s.PermissionDecision = "allow"
	case toolgate.Modify:
		s.PermissionDecision = "allow"
		s.UpdatedInput = rewrittenInput(out, d)
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
