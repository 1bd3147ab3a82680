package mcpgate

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStateSigner(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, err := newStateSigner([]byte("0123456789abcdef0123456789abcdef"), clock)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := newStateSigner([]byte("another key, also 32 bytes long!"), clock)
	args := argsDigest([]byte(`{"path":"/tmp/x"}`))
	mint := func(t *testing.T, by *stateSigner) string {
		st, err := by.mint("mcp__fs__write_file", args, "rev1", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	tests := []struct {
		name     string
		state    func(t *testing.T) string
		tool     string
		args     string
		revision string
		advance  time.Duration
		want     error // nil: verifies
	}{
		{name: "issued", state: func(t *testing.T) string { return mint(t, s) }},
		{name: "unasked", state: func(*testing.T) string { return "" }, want: ErrUnasked},
		{name: "another key", state: func(t *testing.T) string { return mint(t, other) }, want: ErrForged},
		{name: "garbage", state: func(*testing.T) string { return "hello" }, want: ErrForged},
		{name: "wrong version", state: func(t *testing.T) string { return "tg2" + mint(t, s)[3:] }, want: ErrForged},
		{name: "payload swapped", state: func(t *testing.T) string {
			a, b := strings.Split(mint(t, s), "."), strings.Split(mint(t, s), ".")
			return a[0] + "." + b[1] + "." + a[2]
		}, want: ErrForged},
		{name: "too long", state: func(*testing.T) string { return strings.Repeat("a", maxStateLen+1) }, want: ErrForged},
		{name: "other tool", state: func(t *testing.T) string { return mint(t, s) }, tool: "mcp__fs__read_file", want: ErrAltered},
		{name: "other arguments", state: func(t *testing.T) string { return mint(t, s) }, args: argsDigest([]byte(`{"path":"/etc/x"}`)), want: ErrAltered},
		{name: "other policy", state: func(t *testing.T) string { return mint(t, s) }, revision: "rev2", want: ErrAltered},
		{name: "expired", state: func(t *testing.T) string { return mint(t, s) }, advance: 2 * time.Minute, want: ErrExpired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			st := tc.state(t)
			now = now.Add(tc.advance)
			tool, a, rev := "mcp__fs__write_file", args, "rev1"
			if tc.tool != "" {
				tool = tc.tool
			}
			if tc.args != "" {
				a = tc.args
			}
			if tc.revision != "" {
				rev = tc.revision
			}
			err := s.verify(st, tool, a, rev)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("verify: %v", err)
				}
				if err := s.verify(st, tool, a, rev); !errors.Is(err, ErrReplayed) {
					t.Errorf("second use: %v, want ErrReplayed", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestStateBurntByWrongCall(t *testing.T) {
	s, _ := newStateSigner(nil, nil)
	st, _ := s.mint("t", "d", "r", time.Minute)
	if err := s.verify(st, "t", "other", "r"); !errors.Is(err, ErrAltered) {
		t.Fatalf("altered: %v", err)
	}
	if err := s.verify(st, "t", "d", "r"); !errors.Is(err, ErrReplayed) {
		t.Errorf("a state shown with the wrong call must be used up: %v", err)
	}
}

func TestArgsDigest(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`},
		{``, `{}`},
		{`null`, `{}`},
		{`{"n":1.50}`, `{"n":1.50}`},
	}
	for _, p := range same {
		if argsDigest([]byte(p[0])) != argsDigest([]byte(p[1])) {
			t.Errorf("%s and %s digest differently", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"n":1.5}`, `{"n":1.50}`},
		{`{"a":"x"}`, `{"a":"x","b":null}`},
		{`{`, `{}`},
	}
	for _, p := range differ {
		if argsDigest([]byte(p[0])) == argsDigest([]byte(p[1])) {
			t.Errorf("%s and %s digest alike", p[0], p[1])
		}
	}
}

func FuzzStateVerify(f *testing.F) {
	// A fixed clock and nonce: every fuzzing process mints the same good
	// state, so the seed that is good here is good in each worker too.
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, _ := newStateSigner([]byte("0123456789abcdef0123456789abcdef"), func() time.Time { return at })
	good, _ := s.mintNonce([]byte("fixed nonce 0123"), "tool", "digest", "rev", time.Hour)
	f.Add(good)
	f.Add("tg1.e30.AAAA")
	f.Add("")
	f.Add("tg1..")
	f.Fuzz(func(t *testing.T, st string) {
		err := s.verify(st, "tool", "digest", "rev")
		if err == nil && st != good {
			t.Fatalf("a state the signer did not mint verified: %q", st)
		}
	})
}
