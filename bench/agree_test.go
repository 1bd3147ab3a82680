package bench

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// built caches the engines of each policy the tests use: building OPA and
// cedar-go policies of 1,000 rules takes a noticeable part of a second.
var built struct {
	sync.Mutex
	m map[string][]Engine
}

func engines(t *testing.T, shape Shape, n int) (*Policy, []Engine) {
	t.Helper()
	p := Generate(shape, n)
	key := fmt.Sprintf("%s/%d", shape, n)
	built.Lock()
	defer built.Unlock()
	if es, ok := built.m[key]; ok {
		return p, es
	}
	var es []Engine
	for _, b := range Engines {
		e, err := b.Build(p)
		if err != nil {
			t.Fatalf("%s: build %s: %v", b.Name, key, err)
		}
		es = append(es, e)
	}
	if built.m == nil {
		built.m = map[string][]Engine{}
	}
	built.m[key] = es
	return p, es
}

// agreeing are hand-written calls whose outcome is the same in every
// engine's semantics, on every generated policy (the base rules decide them).
var agreeing = []struct {
	call Call
	want Effect
}{
	{Bash("exact", "git status"), Allow},
	{Bash("exact-plus-argument", "git status --short"), Ask},
	{Bash("prefix-alone", "git diff"), Allow},
	{Bash("prefix-no-boundary", "git difftool"), Ask},
	{Bash("deny-prefix", "curl https://example.com/x"), Deny},
	{Bash("deny-longer-prefix", "git push --force origin main"), Deny},
	{Bash("unknown", "make all"), Ask},
	{FileCall("read-allowed", "Read", Cwd+"/src/a/b.go"), Allow},
	{FileCall("read-denied", "Read", Cwd+"/secrets/api.key"), Deny},
	{FileCall("edit-of-read-denied", "Edit", Cwd+"/secrets/api.key"), Deny},
	{FileCall("read-unmatched", "Read", Cwd+"/docs/guide.md"), Ask},
	{FileCall("edit-unmatched", "Edit", Cwd+"/docs/guide.md"), Ask},
	{Call{"mcp-ask", "mcp__github__create_issue", `{"title":"t"}`}, Ask},
	{Call{"mcp-other-server", "mcp__githubx__get_issue", `{}`}, Ask},
}

// TestAgreement checks that every engine decides the same way where their
// semantics agree: the benchmark calls, the hand-written calls above, and
// for every generated rule a call it matches (expecting its list) and a near
// miss that no rule matches (expecting ask).
func TestAgreement(t *testing.T) {
	for _, tc := range []struct {
		shape Shape
		n     int
	}{{Mixed, 20}, {Mixed, 1000}, {Adversarial, 20}, {Adversarial, 1000}} {
		t.Run(fmt.Sprintf("%s/%d", tc.shape, tc.n), func(t *testing.T) {
			p, es := engines(t, tc.shape, tc.n)
			check := func(c Call, want Effect) {
				t.Helper()
				payload := c.Payload()
				for i, e := range es {
					if got := e.Decide(payload); got != want {
						t.Errorf("%s: %s %s: got %s, want %s", Engines[i].Name, c.Name, c.Input, got, want)
					}
				}
			}
			for _, c := range BenchCalls {
				check(c, Allow)
			}
			for _, a := range agreeing {
				check(a.call, a.want)
			}
			calls := 0
			for _, r := range p.Rules[len(baseRules):] {
				for _, c := range ruleCalls(r) {
					check(c.call, c.want)
					calls++
				}
			}
			if want := 2 * (len(p.Rules) - len(baseRules)); calls < want {
				t.Errorf("%d calls derived from %d generated rules, want at least %d", calls, len(p.Rules)-len(baseRules), want)
			}
		})
	}
}

// number is the first run of digits: every generated rule holds its index,
// and a call with the index replaced by "q" matches no rule.
var number = regexp.MustCompile(`[0-9]+`)

type derived struct {
	call Call
	want Effect
}

// ruleCalls are a call that a generated rule matches, with the rule's
// effect, and its near miss, with ask. A path rule's call names a path the
// glob matches (** as one directory "dd", * as "f"); a Read deny rule also
// gets an Edit call of that path, which it blocks too.
func ruleCalls(r Rule) []derived {
	miss := func(s string) string { return number.ReplaceAllStringFunc(s, once()) }
	var hit Call
	var out []derived
	switch r.Kind {
	case Shell:
		cmd := r.Pattern
		if r.Prefix {
			cmd += " --x"
		}
		hit = Bash("rule "+r.Text(), cmd)
		out = append(out, derived{hit, r.Effect}, derived{Bash("miss "+r.Text(), miss(cmd)), Ask})
	case Path:
		path := Cwd + "/" + strings.ReplaceAll(strings.ReplaceAll(r.Pattern, "**", "dd"), "*", "f")
		hit = FileCall("rule "+r.Text(), r.Tool, path)
		out = append(out, derived{hit, r.Effect}, derived{FileCall("miss "+r.Text(), r.Tool, miss(path)), Ask})
		if r.Tool == "Read" && r.Applies("Edit") {
			out = append(out, derived{FileCall("edit under "+r.Text(), "Edit", path), Deny})
		}
	case ToolName:
		name := strings.Replace(r.Tool, "*", "x", 1)
		out = append(out, derived{Call{"rule " + r.Text(), name, `{}`}, r.Effect}, derived{Call{"miss " + r.Text(), miss(name), `{}`}, Ask})
	}
	return out
}

// once returns a replacement function that replaces its first match with
// "q" and leaves the rest.
func once() func(string) string {
	done := false
	return func(s string) string {
		if done {
			return s
		}
		done = true
		return "q"
	}
}

// stricter lists where toolgate is deliberately stricter than the peers: it
// parses the command and reads every simple command, substitution and
// argument; it cleans paths and folds case for deny rules. The peers match
// the raw strings of the call. Every row is asserted for every engine.
var stricter = []struct {
	why      string
	call     Call
	toolgate Effect
	peers    Effect // cedar-go, OPA and the floor alike
}{
	{"a compound command: each part is matched on its own",
		Bash("and-list", "git diff && curl -s https://evil.example/x"), Deny, Allow},
	{"a sequence with ;",
		Bash("semicolon", "git diff ; curl -s https://evil.example/x"), Deny, Allow},
	{"a pipe into a shell is unanalysable",
		Bash("pipe-to-shell", "git diff --stat HEAD~1 | bash"), Ask, Allow},
	{"a command substitution is a command of its own",
		Bash("substitution", "git diff $(curl -s https://evil.example/x)"), Deny, Allow},
	{"bash -c: the script is parsed and checked",
		Bash("bash-c", "bash -c 'curl -s https://evil.example/x'"), Deny, Ask},
	{"a program given by path is read as its name for deny",
		Bash("program-path", "/usr/bin/curl -s https://evil.example/x"), Deny, Ask},
	{"sudo is seen through for deny",
		Bash("sudo", "sudo curl -s https://evil.example/x"), Deny, Ask},
	{"an argument naming a denied path",
		Bash("argument-path", "cat secrets/api.key"), Deny, Allow},
	{"an output redirection is a write that needs an Edit allow rule",
		Bash("redirection", "cargo build --release > /etc/cron.d/x"), Ask, Allow},
	{"a critical removal is a safety floor: never allowed by a rule, only a person",
		Bash("critical-removal", "cargo build && rm -rf ~"), Ask, Allow},
	{"a path with .. is cleaned before matching",
		FileCall("dotdot-read", "Read", Cwd+"/src/../secrets/api.key"), Deny, Allow},
	{"a path with .. is cleaned before matching (edit)",
		FileCall("dotdot-edit", "Edit", Cwd+"/src/a/../../secrets/api.key"), Deny, Allow},
	{"deny rules match paths case-insensitively",
		FileCall("case-folded", "Read", Cwd+"/SECRETS/api.key"), Deny, Ask},
}

// TestStricter asserts the table above, and that each row really is
// stricter (deny over ask over allow), on two policy sizes.
func TestStricter(t *testing.T) {
	rank := map[Effect]int{Allow: 0, Ask: 1, Deny: 2}
	for _, n := range []int{20, 1000} {
		_, es := engines(t, Mixed, n)
		for _, s := range stricter {
			if rank[s.toolgate] <= rank[s.peers] {
				t.Errorf("%s: toolgate %s is not stricter than %s", s.call.Name, s.toolgate, s.peers)
			}
			payload := s.call.Payload()
			for i, e := range es {
				want := s.peers
				if Engines[i].Name == "toolgate" {
					want = s.toolgate
				}
				if got := e.Decide(payload); got != want {
					t.Errorf("rules=%d: %s: %s (%s): got %s, want %s", n, Engines[i].Name, s.call.Name, s.why, got, want)
				}
			}
		}
	}
}

// edges are where the peers' translations of a path rule are only close to
// toolgate's gitignore semantics, asserted per engine so that a change in any
// engine shows: Cedar's like and OPA's glob.match need a directory for
// "**/" where gitignore also matches at the top, and a deny pattern naming a
// directory covers everything below it in toolgate (Cedar's * spans slashes,
// so it does too). The generated workloads avoid these paths.
var edges = []struct {
	why  string
	call Call
	want map[string]Effect
}{
	{"**/*.x00042 at the top of the working directory",
		FileCall("top", "Read", Cwd+"/f.x00042"),
		map[string]Effect{"toolgate": Deny, "cedar": Ask, "opa": Ask, "floor": Deny}},
	{"below a directory that **/secret7* names",
		FileCall("below", "Read", Cwd+"/a/secret7dir/x"),
		map[string]Effect{"toolgate": Deny, "cedar": Deny, "opa": Ask, "floor": Ask}},
	{"**/*.x00042 three directories down",
		FileCall("deep", "Read", Cwd+"/a/b/c/f.x00042"),
		map[string]Effect{"toolgate": Deny, "cedar": Deny, "opa": Deny, "floor": Deny}},
}

func TestEdges(t *testing.T) {
	p := &Policy{Cwd: Cwd, Rules: []Rule{
		{Deny, Path, "Read", "**/secret7*", false},
		{Deny, Path, "Read", "**/*.x00042", false},
	}}
	for _, b := range Engines {
		e, err := b.Build(p)
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		for _, c := range edges {
			want, ok := c.want[b.Name]
			if !ok {
				t.Fatalf("%s: no expectation for %s", c.call.Name, b.Name)
			}
			if got := e.Decide(c.call.Payload()); got != want {
				t.Errorf("%s: %s (%s): got %s, want %s", b.Name, c.call.Name, c.why, got, want)
			}
		}
	}
}
