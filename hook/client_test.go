package hook

import "testing"

// TestCanAsk pins down where an ask may be passed on (docs/cli.md's table).
func TestCanAsk(t *testing.T) {
	for _, tt := range []struct {
		c      Client
		mode   string
		event  string
		policy AskPolicy
		want   bool
	}{
		{Claude, "default", "PreToolUse", "", true},
		{Claude, "acceptEdits", "PreToolUse", "", true},
		{Claude, "plan", "PreToolUse", "", true},
		{Claude, "bypassPermissions", "PreToolUse", "", false},
		{Claude, "bypassPermissions", "PreToolUse", AskAsk, false},
		{Claude, "dontAsk", "PreToolUse", "", false},
		{Claude, "auto", "PreToolUse", "", false},
		{Claude, "", "PreToolUse", "", false},
		{Claude, "manual", "PreToolUse", "", false},
		{Claude, "default", "PreToolUse", AskDeny, false},
		{Codex, "default", "PreToolUse", AskAsk, false},
		{Codex, "", "PreToolUse", "", false},
		{Gemini, "", "BeforeTool", "", false},
		{Gemini, "", "BeforeTool", AskAsk, true},
		{Cursor, "", cursorShell, "", true},
		{Cursor, "", cursorRead, "", false},
	} {
		got, why := CanAsk(tt.c, Meta{Client: tt.c, Event: tt.event, PermissionMode: tt.mode}, &Options{AskPolicy: tt.policy})
		if got != tt.want || (!got && why == "") {
			t.Errorf("CanAsk(%s, mode %q, policy %q) = %v %q, want %v (and a reason when false)", tt.c, tt.mode, tt.policy, got, why, tt.want)
		}
	}
}

// TestProtocols checks that every listed client has a protocol and every
// protocol is listed, so that ParseClient, Clients and the table agree.
func TestProtocols(t *testing.T) {
	if len(protocols) != len(Clients) {
		t.Errorf("%d protocols for %d clients", len(protocols), len(Clients))
	}
	for _, c := range Clients {
		if _, ok := protocols[c]; !ok {
			t.Errorf("client %s has no protocol", c)
		}
		if got, err := ParseClient(string(c)); got != c || err != nil {
			t.Errorf("ParseClient(%q) = %q, %v", c, got, err)
		}
		if c.Agent() == string(c) {
			t.Errorf("client %s has no agent name", c)
		}
	}
	if _, err := ParseClient("vim"); err == nil || err.Error() != `unknown client "vim" (want claude, gemini, codex or cursor)` {
		t.Errorf("ParseClient(vim): %v", err)
	}
	if ok, why := CanAsk("vim", Meta{}, &Options{AskPolicy: AskAsk}); ok || why == "" {
		t.Errorf("CanAsk(vim) = %v %q, want false and a reason", ok, why)
	}
}
