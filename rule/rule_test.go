package rule

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in        string
		tool      string
		spec      string
		errOffset int // -1: no error
		errText   string
	}{
		{"Bash", "Bash", "", -1, ""},
		{"  Bash  ", "Bash", "", -1, ""},
		{"Bash(*)", "Bash", "", -1, ""},
		{"Bash(npm run test:*)", "Bash", "npm run test:*", -1, ""},
		{"Read(./.env)", "Read", "./.env", -1, ""},
		{"mcp__github__get_*", "mcp__github__get_*", "", -1, ""},
		{"WebFetch(domain:*.example.com)", "WebFetch", "domain:*.example.com", -1, ""},
		{"Bash(echo (a))", "Bash", "echo (a)", -1, ""},
		{"Bash(ls) ", "Bash", "ls", -1, ""},
		{"", "", "", 0, "empty rule"},
		{"   ", "", "", 0, "empty rule"},
		{"Bash()", "", "", 5, "empty specifier"},
		{"Bash(  )", "", "", 5, "empty specifier"},
		{"Bash(ls", "", "", 7, "must end with"},
		{"Bash(ls) x", "", "", 10, "must end with"},
		{"Ba sh", "", "", 2, "a space"},
		{"Bash ls", "", "", 4, "a space"},
		{"(ls)", "", "", 0, "missing tool name"},
		{"Bash)", "", "", 4, "without a matching"},
		{"Bäsh", "", "", 1, "tool name contains"},
		{"  Ba!sh", "", "", 4, "tool name contains"},
		// Claude Code's escapes (cli.js 2.1: bD splits at the first and
		// last unescaped parenthesis, Hba unescapes \( \) then \\).
		{`Bash(python3 -c "print\(1\)")`, "Bash", `python3 -c "print(1)"`, -1, ""},
		{`Bash(find . \\\( -name a \\\))`, "Bash", `find . \( -name a \)`, -1, ""},
		{`Bash(find . -exec rm {} \;)`, "Bash", `find . -exec rm {} \;`, -1, ""},
		{`Bash(echo \)`, "", "", 10, "escaped"},
		{`Bash(echo \\)`, "Bash", `echo \`, -1, ""},
		// Spaces inside the parentheses are kept as written.
		{"Bash(dd :*)", "Bash", "dd :*", -1, ""},
		{"Read( ** /*token*)", "Read", " ** /*token*", -1, ""},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in)
		if tt.errOffset >= 0 {
			e, ok := err.(*Error)
			if !ok {
				t.Errorf("Parse(%q) = %+v, %v; want error at %d", tt.in, r, err, tt.errOffset)
				continue
			}
			if e.Offset != tt.errOffset || !strings.Contains(e.Msg, tt.errText) {
				t.Errorf("Parse(%q) error = %d %q; want %d containing %q", tt.in, e.Offset, e.Msg, tt.errOffset, tt.errText)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): unexpected error %v", tt.in, err)
			continue
		}
		if r.Tool != tt.tool || r.Specifier != tt.spec {
			t.Errorf("Parse(%q) = tool %q spec %q; want %q %q", tt.in, r.Tool, r.Specifier, tt.tool, tt.spec)
		}
		if r.Text != strings.TrimSpace(tt.in) {
			t.Errorf("Parse(%q).Text = %q", tt.in, r.Text)
		}
	}
}

func TestPaddedTrimmed(t *testing.T) {
	tests := []struct {
		in     string
		padded bool
		trim   string // Trimmed(false)
		trimP  string // Trimmed(true)
	}{
		{"Bash(dd :*)", true, "dd:*", "dd:*"},
		{"Bash(sudo   :*)", true, "sudo:*", "sudo:*"},
		{"Bash( git push:*)", true, "git push:*", "git push:*"},
		{"Bash(npm test )", true, "npm test", "npm test"},
		{"Bash(npm test:*)", false, "npm test:*", "npm test:*"},
		{"Bash(ls *)", false, "ls *", "ls *"},
		{"Read( ** /*token*)", true, "** /*token*", "**/*token*"},
		{"Read(src/ ** )", true, "src/ **", "src/**"},
		{"Read(./.env)", false, "./.env", "./.env"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if r.Padded() != tt.padded || r.Trimmed(false) != tt.trim || r.Trimmed(true) != tt.trimP {
			t.Errorf("%q: Padded %v Trimmed %q %q; want %v %q %q", tt.in, r.Padded(), r.Trimmed(false), r.Trimmed(true), tt.padded, tt.trim, tt.trimP)
		}
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{`a(b)`, `\(`, `x\\y`, `print(1)`, `a\;b`, `(`, `\`} {
		if got := Unescape(Escape(s)); got != s {
			t.Errorf("Unescape(Escape(%q)) = %q", s, got)
		}
	}
}

func TestColumn(t *testing.T) {
	if got := Column("Bäsh(x", 3); got != 2 {
		t.Errorf("Column = %d, want 2", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(npm run test:*)", "Read(./.env)", "mcp__a__b", "x()", "Bash(*)", " A(b) "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Offset < 0 || e.Offset > len(s) {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		printed := r.String()
		r2, err := Parse(printed)
		if err != nil {
			t.Fatalf("Parse(String(Parse(%q))=%q): %v", s, printed, err)
		}
		if r2.Tool != r.Tool || r2.Specifier != r.Specifier || r2.String() != printed {
			t.Fatalf("round trip of %q: %+v then %+v", s, r, r2)
		}
	})
}
