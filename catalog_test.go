package toolgate_test

import (
	"testing"

	"github.com/toolgate/toolgate"
)

// claudeTools is Claude Code 2.1.332's tool list (the array of tool names in
// its bundled JavaScript, next to the alias table) and the older names real
// settings files still hold.
var claudeTools = []string{
	"Agent", "Artifact", "AskUserQuestion", "Bash", "ClaudeDesign", "CronCreate", "CronDelete", "CronList",
	"Edit", "EndConversation", "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree", "Glob", "Grep",
	"ListAgents", "ListMcpResourcesTool", "LSP", "Monitor", "NotebookEdit", "OfferChromeSetup", "PowerShell",
	"Projects", "propose_skills", "PushNotification", "Read", "ReadMcpResourceDirTool", "ReadMcpResourceTool",
	"ReadNotifications", "RemoteTrigger", "ReportFindings", "ScheduleWakeup", "SendFeedback", "SendMessage",
	"SendUserFile", "SendUserMessage", "SetGoal", "ShareOnboardingGuide", "ShowOnboardingRolePicker", "Skill",
	"SubagentHandback", "TaskCreate", "TaskGet", "TaskList", "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch",
	"WaitForMcpServers", "WebFetch", "WebSearch", "Workflow", "Write",
	// earlier 2.x names
	"SlashCommand", "BashOutput", "KillShell", "KillBash", "MultiEdit", "NotebookRead", "LS", "TodoRead", "Task",
}

func TestClaudeCatalog(t *testing.T) {
	cat := toolgate.BuiltinTools()
	for _, n := range claudeTools {
		if _, ok := cat[n]; !ok {
			t.Errorf("%s is not in the catalog", n)
		}
	}
	for a, c := range toolgate.ToolAliases() {
		if _, ok := cat[a]; !ok {
			t.Errorf("alias %s is not in the catalog", a)
		}
		if _, ok := cat[c]; !ok {
			t.Errorf("%s (for alias %s) is not in the catalog", c, a)
		}
		if cat[a] != cat[c] {
			t.Errorf("alias %s is read as %+v, its tool %s as %+v", a, cat[a], c, cat[c])
		}
	}
	want := map[string]toolgate.ToolEntry{
		"Skill":           {Kind: toolgate.KindGeneric, Field: "skill"},
		"SlashCommand":    {Kind: toolgate.KindGeneric, Field: "command"},
		"PowerShell":      {Kind: toolgate.KindGeneric, Field: "command"}, // never bash
		"Task":            {Kind: toolgate.KindAgent, Field: "subagent_type"},
		"Agent":           {Kind: toolgate.KindAgent, Field: "subagent_type"},
		"ExitPlanMode":    {Kind: toolgate.KindPlanExit, ReadOnly: true},
		"NotebookEdit":    {Kind: toolgate.KindEdit},
		"Glob":            {Kind: toolgate.KindList, ReadOnly: true},
		"Grep":            {Kind: toolgate.KindSearch, ReadOnly: true},
		"WebSearch":       {Kind: toolgate.KindWebSearch, Field: "query", ReadOnly: true},
		"TodoWrite":       {Kind: toolgate.KindGeneric, ReadOnly: true},
		"AskUserQuestion": {Kind: toolgate.KindGeneric, ReadOnly: true},
		"BashOutput":      {Kind: toolgate.KindGeneric, ReadOnly: true},
		"LSP":             {Kind: toolgate.KindGeneric},
		"TaskStop":        {Kind: toolgate.KindGeneric},
	}
	for n, w := range want {
		if got := cat[n]; got != w {
			t.Errorf("%s = %+v, want %+v", n, got, w)
		}
	}
}
