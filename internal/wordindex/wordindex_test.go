package wordindex

import (
	"slices"
	"strings"
	"testing"
)

// rule is a test rule: its literal leading words.
type rule struct {
	name  string
	words []string
}

func ruleWords(r *rule) []string { return r.words }

// compatible reports whether a command with key k could match a rule with
// literal leading words ws: they agree on every word both have, and a rule
// needing more words than the key knows is possible only when the key is
// open.
func compatible(ws []string, k Key, fold bool) bool {
	for i, w := range ws {
		if i >= k.N {
			return k.Open
		}
		kw := k.Words[i]
		if fold {
			kw = strings.ToLower(kw)
		}
		if w != kw {
			return false
		}
	}
	return true
}

func build(rules []*rule) *Index[*rule] {
	var x Index[*rule]
	for _, r := range rules {
		first := ""
		if len(r.words) > 0 {
			first = r.words[0]
		}
		x.Add(r, first, ruleWords)
	}
	return &x
}

func key(open bool, words ...string) Key {
	k := Key{Open: open}
	for _, w := range words {
		k.Words[k.N] = w
		k.N++
	}
	return k
}

func TestVisit(t *testing.T) {
	var rules []*rule
	for _, sub := range []string{"status", "diff", "log", "push", "pull", "fetch", "commit", "rebase", "merge"} {
		rules = append(rules, &rule{"git " + sub, []string{"git", sub}})
	}
	rules = append(rules,
		&rule{"git", []string{"git"}},
		&rule{"git push --force", []string{"git", "push", "--force"}},
		&rule{"npm", []string{"npm"}},
		&rule{"any", nil})
	x := build(rules)
	for _, tc := range []struct {
		keys []Key
		want []string
	}{
		{[]Key{key(false, "git", "push", "--force")}, []string{"any", "git", "git push", "git push --force"}},
		{[]Key{key(false, "git", "status")}, []string{"any", "git", "git status"}},
		{[]Key{key(false, "git")}, []string{"any", "git"}},
		{[]Key{key(true, "git")}, []string{"any", "git", "git commit", "git diff", "git fetch", "git log", "git merge", "git pull", "git push", "git push --force", "git rebase", "git status"}},
		{[]Key{key(false, "npm", "test")}, []string{"any", "npm"}},
		{[]Key{key(false, "ls")}, []string{"any"}},
		{[]Key{key(false, "ls"), key(false, "git", "log")}, []string{"any", "git", "git log"}},
	} {
		var got []string
		x.Visit(tc.keys, false, func(r *rule) { got = append(got, r.name) })
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Visit(%v) = %q, want %q", tc.keys, got, tc.want)
		}
	}
	var all []string
	x.All(func(r *rule) { all = append(all, r.name) })
	if len(all) != len(rules) {
		t.Errorf("All visited %d rules, want %d", len(all), len(rules))
	}
	var folded []string
	x.Visit([]Key{key(false, "GIT", "LOG")}, true, func(r *rule) { folded = append(folded, r.name) })
	slices.Sort(folded)
	if !slices.Equal(folded, []string{"any", "git", "git log"}) {
		t.Errorf("folded Visit = %q", folded)
	}
}

// FuzzVisit checks that the index never leaves out a rule a command could
// match: every rule whose literal words agree with the key is visited.
func FuzzVisit(f *testing.F) {
	f.Add("git status|git diff|git log|git push --force|npm run test|npm run build|x", "git push --force", false, false)
	f.Add("a b|a c|a d|a e|a f|a g|a h|a i|a j k|a j l", "a j", true, false)
	f.Add("A B|a b c", "a B", false, true)
	f.Fuzz(func(t *testing.T, spec, cmd string, open, fold bool) {
		var rules []*rule
		for i, line := range strings.Split(spec, "|") {
			ws := strings.Fields(line)
			if len(ws) > MaxWords {
				ws = ws[:MaxWords]
			}
			if fold {
				for j := range ws {
					ws[j] = strings.ToLower(ws[j])
				}
			}
			rules = append(rules, &rule{name: strings.Repeat("r", i+1), words: ws})
			if len(rules) == 200 {
				break
			}
		}
		// Enough copies that every node is indexed.
		for _, r := range slices.Clone(rules) {
			for j := range minRules {
				rules = append(rules, &rule{name: r.name + strings.Repeat("'", j+1), words: r.words})
			}
		}
		x := build(rules)
		ws := strings.Fields(cmd)
		if len(ws) == 0 || len(ws) > MaxWords {
			return
		}
		k := key(open, ws...)
		seen := map[*rule]bool{}
		x.Visit([]Key{k}, fold, func(r *rule) { seen[r] = true })
		for _, r := range rules {
			if compatible(r.words, k, fold) && !seen[r] {
				t.Fatalf("key %v (fold %v) could match rule %q %q but was not offered it", k, fold, r.name, r.words)
			}
		}
	})
}
