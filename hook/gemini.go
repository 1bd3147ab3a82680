package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate"
)

// Gemini is Gemini CLI (verified against 0.61.0): a BeforeTool command hook
// in .gemini/settings.json.
const Gemini Client = "gemini"

// gemini is Gemini CLI's [protocol].
type gemini struct{}

func (gemini) agent() string { return "Gemini CLI" }

// decode reads Gemini CLI's BeforeTool payload.
func (gemini) decode(f fields, call *toolgate.Call, m *Meta) error {
	if err := f.event(m, "BeforeTool"); err != nil {
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
	cf, ok, err := f.sub("mcp_context")
	if err != nil {
		return err
	}
	if !ok {
		if strings.HasPrefix(m.Tool, "mcp_") {
			return fmt.Errorf("MCP tool %q without mcp_context: its server cannot be told apart from its name", m.Tool)
		}
		return nil
	}
	server, err := cf.str("server_name", true)
	if err != nil {
		return fmt.Errorf("mcp_context: %v", err)
	}
	tool, err := cf.str("tool_name", true)
	if err != nil {
		return fmt.Errorf("mcp_context: %v", err)
	}
	call.Tool = "mcp__" + server + "__" + tool
	call.Server = server
	return nil
}

// defaultAsk is deny: an ask hangs a headless Gemini CLI.
func (gemini) defaultAsk() AskPolicy { return AskDeny }

func (gemini) canAsk(policy AskPolicy, _ Meta) (bool, string) {
	if policy != AskAsk {
		return false, "a hook's \"ask\" hangs a headless Gemini CLI"
	}
	return true, ""
}

// cannotRewrite: Gemini CLI merges tool_input into the original input, so
// a rewrite cannot remove a field.
func (gemini) cannotRewrite(m Meta, in json.RawMessage) string {
	if p := removedField(m.Input, in); p != "" {
		return fmt.Sprintf("Gemini CLI merges a rewrite into the original input and cannot remove %s", p)
	}
	return ""
}

func (gemini) answer(out toolgate.Outcome, reason string, d toolgate.Decision, _ Meta) (any, string) {
	return geminiAnswer(out, reason, d), ""
}

// settingsPath: the user's settings by default, since Gemini CLI ignores a
// project's settings unless the folder was trusted before it started.
func (gemini) settingsPath(o InstallOptions) (string, error) {
	return o.settingsFile(ScopeUser, ".gemini", "settings.json")
}

func (gemini) edit(old []byte, o InstallOptions, install bool) ([]byte, error) {
	cmd := o.command(Gemini)
	entry := commandEntry(cmd, 10000) // milliseconds
	return editJSON(old, install, func(_, hooks *object) (bool, error) {
		return editGroups(hooks, "BeforeTool", o.matcherOr(".*"), cmd, entry, install)
	})
}

// settings reads Gemini CLI's system, user and project settings; the
// project's count only in a trusted folder, and hooksConfig.enabled = false
// or a hooksConfig.disabled entry switches the hook off.
func (gemini) settings(_ context.Context, st *Status, o StatusOptions) (string, bool) {
	ud := filepath.Join(o.Home, ".gemini")
	if d := envValue(o.env(), "GEMINI_CLI_HOME"); d != "" {
		ud = filepath.Join(d, ".gemini")
	}
	user := filepath.Join(ud, "settings.json")
	trusted, why := geminiFolderTrusted(o)
	js := jsonSettings{
		files: []settingsFile{{"/etc/gemini-cli/settings.json", false}, {user, false},
			{filepath.Join(o.Dir, ".gemini", "settings.json"), true}},
		off: func(f settingsFile, v map[string]any) string {
			if hc, ok := v["hooksConfig"].(map[string]any); ok {
				if en, ok := hc["enabled"].(bool); ok && !en && (!f.project || trusted) {
					return f.path + " sets hooksConfig.enabled = false: Gemini CLI runs no hook"
				}
			}
			return ""
		},
		commands: func(v map[string]any) []string { return groupCommands(v, "BeforeTool") },
		skipped: func(cmd string) string {
			if geminiDisabled(user, cmd) {
				return fmt.Sprintf("hooksConfig.disabled lists %q: Gemini CLI skips it", cmd)
			}
			return ""
		},
	}
	if !trusted {
		js.untrusted = why
	}
	return fileSettings(st, Gemini, js)
}

// probePayload is a shell write of target.
func (gemini) probePayload(dir, _, shell string) map[string]any {
	return map[string]any{"session_id": "toolgate-probe", "hook_event_name": "BeforeTool", "cwd": dir,
		"tool_name": "run_shell_command", "tool_input": map[string]any{"command": shell}}
}

func (gemini) probeVerdict(stdout []byte) (decision, reason string, err error) {
	var out struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return "", "", err
	}
	return out.Decision, out.Reason, nil
}

type geminiOutput struct {
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName string          `json:"hookEventName"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

func geminiAnswer(out toolgate.Outcome, reason string, d toolgate.Decision) geminiOutput {
	var g geminiOutput
	switch out {
	case toolgate.Allow:
		g.Decision = "allow"
	case toolgate.Modify:
		g.Decision = "allow"
	case toolgate.Ask:
		g.Decision = "ask"
		g.Reason = reason
		if d.Prompt != "" {
			g.Reason = d.Prompt + "\n" + reason
		}
	default:
		g.Decision = "deny"
		g.Reason = reason
	}
	if in := rewrittenInput(out, d); in != nil {
		g.HookSpecificOutput = &geminiSpecific{HookEventName: "BeforeTool", ToolInput: in}
	}
	return g
}

// geminiFolderTrusted applies Gemini CLI's folder-trust rule to o.Dir: the
// folder is trusted when GEMINI_CLI_TRUST_WORKSPACE=true, when the user's
// settings switch folder trust off (security.folderTrust.enabled = false),
// or when the longest rule of ~/.gemini/trustedFolders.json that covers it
// is TRUST_FOLDER or TRUST_PARENT (which trusts the rule's parent).
func geminiFolderTrusted(o StatusOptions) (bool, string) {
	if envValue(o.env(), "GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return true, ""
	}
	home := filepath.Join(o.Home, ".gemini")
	if data, err := os.ReadFile(filepath.Join(home, "settings.json")); err == nil {
		var s struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if json.Unmarshal(data, &s) == nil && s.Security.FolderTrust.Enabled != nil && !*s.Security.FolderTrust.Enabled {
			return true, ""
		}
	}
	data, err := os.ReadFile(filepath.Join(home, "trustedFolders.json"))
	if err != nil {
		return false, o.Dir + " is not a trusted folder (no " + filepath.Join(home, "trustedFolders.json") + "); trust it in Gemini CLI, or install with --user"
	}
	var rules map[string]string
	if err := json.Unmarshal(data, &rules); err != nil {
		return false, "trustedFolders.json is not valid JSON"
	}
	best, level := -1, ""
	for p, l := range rules {
		eff := p
		if l == "TRUST_PARENT" {
			eff = filepath.Dir(p)
		}
		eff = filepath.Clean(eff)
		if o.Dir == eff || strings.HasPrefix(o.Dir, strings.TrimSuffix(eff, "/")+"/") {
			if len(eff) > best {
				best, level = len(eff), l
			}
		}
	}
	if level == "TRUST_FOLDER" || level == "TRUST_PARENT" {
		return true, ""
	}
	return false, o.Dir + " is not a trusted folder in trustedFolders.json; trust it in Gemini CLI, or install with --user"
}

func geminiDisabled(userSettings, cmd string) bool {
	data, err := os.ReadFile(userSettings)
	if err != nil {
		return false
	}
	var s struct {
		HooksConfig struct {
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if json.Unmarshal(data, &s) != nil {
		return false
	}
	for _, d := range s.HooksConfig.Disabled {
		if d == cmd {
			return true
		}
	}
	return false
}
