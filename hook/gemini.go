package hook

import (
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

// decodeGemini reads Gemini CLI's BeforeTool payload.
func (f fields) decodeGemini(call *toolgate.Call, m *Meta) error {
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
	mc, err := f.object("mcp_context", false)
	if err != nil {
		return err
	}
	if mc == nil {
		if strings.HasPrefix(m.Tool, "mcp_") {
			return fmt.Errorf("MCP tool %q without mcp_context: its server cannot be told apart from its name", m.Tool)
		}
		return nil
	}
	cf, err := readObject(mc)
	if err != nil {
		return fmt.Errorf("mcp_context: %v", err)
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
