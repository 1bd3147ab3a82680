package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

// TestHookMainAuditEvalTime: the audit event of a hook call carries the time
// the decision took (it was always 0).
func TestHookMainAuditEvalTime(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	build := func(string, []string) (toolgate.Checker, error) {
		return hookCheckerFunc(func(toolgate.Call) toolgate.Decision {
			time.Sleep(2 * time.Millisecond) // a decision that takes measurable time
			return toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "Bash"}}}
		}), nil
	}
	var stdout, stderr bytes.Buffer
	if exit := hookMain([]string{"claude", "--audit", log}, strings.NewReader(hookClaudeBash), &stdout, &stderr, build); exit != 0 {
		t.Fatalf("exit %d: %s", exit, stderr.String())
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		EvalNS int64 `json:"eval_ns"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &ev); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if ev.EvalNS < int64(2*time.Millisecond) {
		t.Errorf("eval_ns = %d, want at least the 2ms the decision took", ev.EvalNS)
	}
}
