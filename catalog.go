package toolgate

import (
	"fmt"
	"github.com/toolgate/toolgate/internal/starglob"
	"sort"
	"strings"
)

// Kind says how a tool's input is read.
type Kind uint8

// The tool kinds.
const (
	KindGeneric   Kind = iota // anything else: the declared primary field, if any
	KindShell                 // a shell command
	KindRead                  // reads files
	KindList                  // lists directories (a read kind)
	KindSearch                // searches file contents (a read kind)
	KindEdit                  // writes files
	KindFetch                 // fetches a URL
	KindWebSearch             // searches the web
	KindAgent                 // starts a sub-agent
	KindPlanExit              // leaves plan mode
	KindMCP                   // an MCP tool

	numKinds = iota
)

var kindNames = [...]string{"generic", "shell", "read", "list", "search", "edit", "fetch", "web_search", "agent", "plan_exit", "mcp"}

// String returns the kind's name as written in the tools section of a file.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "generic"
}

// MarshalText implements encoding.TextMarshaler: the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it reads a kind name
// (shell, read, list, search, edit, fetch, web_search, agent, plan_exit,
// mcp or generic).
func (k *Kind) UnmarshalText(b []byte) error { return unmarshalWith(k, b, parseKind) }

func parseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return KindGeneric, fmt.Errorf("unknown tool kind %q (want one of shell, read, list, search, edit, fetch, web_search, agent, plan_exit, mcp, generic)", s)
}

// toolEntry is a tool catalog entry: how a tool's input is read.
type toolEntry struct {
	Kind Kind
	// Field is the primary field: the command for shell tools, the URL for
	// fetch tools, the query for web searches, the sub-agent type for agent
	// tools, the declared field for generic tools. Dotted for nested keys.
	Field string
	// ReadOnly marks a tool that only reads. For shell tools it is decided per
	// command; for MCP and generic tools only the configuration can set it.
	ReadOnly bool
	// ExcludesDenied says the tool skips denied files itself, so a content
	// search with it is not a safety floor.
	ExcludesDenied bool
}

// builtinTools is the catalog of SPEC §1.1.
var builtinTools = func() map[string]toolEntry {
	m := map[string]toolEntry{}
	add := func(k Kind, field string, ro bool, names ...string) {
		for _, n := range names {
			m[n] = toolEntry{Kind: k, Field: field, ReadOnly: ro}
		}
	}
	add(KindShell, "command", false, "Bash", "bash", "shell", "run_shell_command")
	add(KindShell, "cmd", false, "exec_command")
	add(KindShell, "action.command", false, "local_shell")
	add(KindRead, "", true, "Read", "read", "read_file", "read_text_file", "read_multiple_files", "read_many_files", "NotebookRead", "View")
	add(KindList, "", true, "LS", "ls", "list_directory", "Glob", "glob")
	add(KindSearch, "", true, "Grep", "grep", "search", "search_file_content")
	add(KindEdit, "", false, "Edit", "edit", "MultiEdit", "Write", "write", "write_file", "NotebookEdit", "replace", "create_file", "edit_file", "move_file", "apply_patch", "download")
	add(KindFetch, "url", true, "WebFetch", "web_fetch", "fetch")
	add(KindWebSearch, "query", true, "WebSearch", "web_search", "google_web_search")
	add(KindAgent, "subagent_type", false, "Agent", "Task")
	add(KindPlanExit, "", true, "exit_plan_mode", "ExitPlanMode")
	// Claude Code 2.1's other tools (the tool list and alias table in its
	// cli.js), and names that earlier 2.x releases used and real settings
	// files still hold. Each is a generic tool: only rules and the default
	// decide it. Those that touch nothing but the agent's own state (its
	// to-do list, a question to the user, the output of a shell it started)
	// are read-only, so plan mode and default_read_only let them through.
	add(KindGeneric, "skill", false, "Skill")
	add(KindGeneric, "command", false, "SlashCommand")
	// PowerShell is not bash: its command is never parsed (readings.go).
	add(KindGeneric, "command", false, "PowerShell")
	add(KindGeneric, "", true, "TodoWrite", "TodoRead", "AskUserQuestion", "BashOutput", "TaskOutput",
		"EnterPlanMode", "TaskList", "TaskGet", "CronList", "ListAgents", "ListPeers", "ToolSearch", "ReadNotifications")
	add(KindGeneric, "", false, "LSP", "TaskStop", "KillShell", "KillBash", "ListMcpResourcesTool", "ListMcpResources",
		"ReadMcpResourceTool", "ReadMcpResource", "ReadMcpResourceDirTool", "ReadMcpResourceDir",
		"Artifact", "ClaudeDesign", "CronCreate", "CronDelete", "EndConversation", "EnterWorktree", "ExitWorktree",
		"Monitor", "OfferChromeSetup", "Projects", "propose_skills", "PushNotification", "RemoteTrigger",
		"ReportFindings", "ScheduleWakeup", "SendFeedback", "SendMessage", "SendUserFile", "SendUserMessage", "Brief",
		"SetGoal", "ProposeGoal", "ShareOnboardingGuide", "ShowOnboardingRolePicker", "SubagentHandback",
		"TaskCreate", "TaskUpdate", "WaitForMcpServers", "Workflow")
	return m
}()

// claudeAliases maps the tool names Claude Code 2.1 accepts in rules for
// another tool (its alias table) to that tool: a rule naming an alias also
// names the tool, and a deny or ask rule naming the tool also names every
// alias, whichever name an agent version sends.
var claudeAliases = map[string]string{
	"Task":               "Agent",
	"KillShell":          "TaskStop",
	"KillBash":           "TaskStop",
	"ListPeers":          "ListAgents",
	"Brief":              "SendUserMessage",
	"ListMcpResources":   "ListMcpResourcesTool",
	"ReadMcpResource":    "ReadMcpResourceTool",
	"ReadMcpResourceDir": "ReadMcpResourceDirTool",
	"ProposeGoal":        "SetGoal",
}

// aliasOf returns the tool a Claude Code alias stands for; with fold, the
// alias is matched ignoring case.
func aliasOf(name string, fold bool) (string, bool) {
	if c, ok := claudeAliases[name]; ok {
		return c, true
	}
	if fold {
		if c, ok := starglob.LookupLower(claudeAliasesFolded, name); ok {
			return c, true
		}
		for i := 0; i < len(name); i++ {
			if name[i] >= 0x80 {
				// Unicode folding (ſ is s) is wider than lower-casing.
				for a, c := range claudeAliases {
					if strings.EqualFold(a, name) {
						return c, true
					}
				}
				break
			}
		}
	}
	return "", false
}

// aliasesFor returns, sorted, the aliases that stand for tool (compared
// ignoring case).
func aliasesFor(tool string) []string {
	for i := 0; i < len(tool); i++ {
		if tool[i] >= 0x80 {
			var names []string
			for a, c := range claudeAliases {
				if strings.EqualFold(c, tool) {
					names = append(names, a)
				}
			}
			sort.Strings(names)
			return names
		}
	}
	names, _ := starglob.LookupLower(aliasesOf, tool)
	return names
}

// claudeAliasesFolded is claudeAliases by lower-cased alias (tool names are
// ASCII), and aliasesOf lists, by lower-cased tool, the aliases that stand
// for it, sorted: compiling a rule looks them up instead of walking the map.
var claudeAliasesFolded, aliasesOf = func() (map[string]string, map[string][]string) {
	folded := make(map[string]string, len(claudeAliases))
	of := map[string][]string{}
	for a, c := range claudeAliases {
		folded[strings.ToLower(a)] = c
		k := strings.ToLower(c)
		of[k] = append(of[k], a)
	}
	for _, as := range of {
		sort.Strings(as)
	}
	return folded, of
}()

// kindNames maps the rule tool names that stand for a whole kind.
var kindRuleNames = map[string]Kind{
	"Bash":      KindShell,
	"Read":      KindRead,
	"Edit":      KindEdit,
	"Write":     KindEdit,
	"WebFetch":  KindFetch,
	"WebSearch": KindWebSearch,
	"Agent":     KindAgent,
}

// kindFamily reports whether a call of kind k is covered by a kind-name rule
// for kind rk ("Read" covers listings and content searches).
func kindFamily(rk, k Kind) bool {
	if rk == KindRead {
		return k == KindRead || k == KindList || k == KindSearch
	}
	return rk == k
}

// isReadKind reports whether k reads files.
func isReadKind(k Kind) bool { return k == KindRead || k == KindList || k == KindSearch }
