package serve

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/toolgate/toolgate"
)

// TestSessionEnginesEvicted: per-session engines are kept for the most
// recently used sessions only, and a session whose engine was dropped is
// decided by its own rules again when it calls next.
func TestSessionEnginesEvicted(t *testing.T) {
	p, err := loadPolicy(PolicySource{})
	if err != nil {
		t.Fatal(err)
	}
	var rules []SessionRule
	for i := range 5 {
		rules = append(rules, SessionRule{Session: fmt.Sprintf("s%d", i), Effect: "allow", Rule: fmt.Sprintf("Bash(tool%d run)", i)})
	}
	rules = append(rules, SessionRule{Session: "s0", Effect: "deny", Rule: "Bash(tool1 run)"})
	d, err := newDeciders(p, rules)
	if err != nil {
		t.Fatal(err)
	}
	d.sessions.max = 2
	call := func(session string, tool int) toolgate.Outcome {
		in, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("tool%d run", tool)})
		return d.decide(Call{Tool: "Bash", Input: in, Cwd: "/w", Session: session}).Outcome
	}
	for round := range 3 {
		for i := range 5 {
			s := fmt.Sprintf("s%d", i)
			if got := call(s, i); got != toolgate.Allow {
				t.Fatalf("round %d: %s's own allow rule: %v", round, s, got)
			}
			if i != 1 {
				if got := call(s, 1); got == toolgate.Allow {
					t.Fatalf("round %d: %s allowed by another session's rule", round, s)
				}
			}
			if n := d.sessions.len(); n > 2 {
				t.Fatalf("%d session engines kept, want at most 2", n)
			}
		}
		if got := call("s0", 1); got != toolgate.Deny {
			t.Fatalf("round %d: s0's deny rule after eviction: %v", round, got)
		}
	}
	// A session without rules uses the base engine and keeps nothing.
	before := d.sessions.len()
	if got := call("other", 0); got == toolgate.Allow {
		t.Fatalf("a session without rules allowed by another's: %v", got)
	}
	if d.sessions.len() != before {
		t.Error("a session without rules got an engine of its own")
	}
}

// TestSessionEnginesConcurrent: concurrent calls of many sessions through a
// small cache all get their own sessions' decisions (run with -race).
func TestSessionEnginesConcurrent(t *testing.T) {
	p, err := loadPolicy(PolicySource{})
	if err != nil {
		t.Fatal(err)
	}
	var rules []SessionRule
	for i := range 16 {
		rules = append(rules, SessionRule{Session: fmt.Sprintf("s%d", i), Effect: "allow", Rule: fmt.Sprintf("Bash(tool%d run)", i)})
	}
	d, err := newDeciders(p, rules)
	if err != nil {
		t.Fatal(err)
	}
	d.sessions.max = 3
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				n := (g*5 + i) % 16
				in, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("tool%d run", n)})
				if got := d.decide(Call{Tool: "Bash", Input: in, Cwd: "/w", Session: fmt.Sprintf("s%d", n)}).Outcome; got != toolgate.Allow {
					t.Errorf("s%d: %v", n, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := d.sessions.len(); n > 3 {
		t.Errorf("%d engines kept, want at most 3", n)
	}
}
