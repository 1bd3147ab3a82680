package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func decodeAnswers(t *testing.T, out string) []response {
	t.Helper()
	var rs []response
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var r response
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestCheckLoopLines(t *testing.T) {
	cfg := benchConfig(t)
	long := `{"tool":"Bash","input":{"command":"` + strings.Repeat("a", maxLine) + `"}}`
	in := strings.Join([]string{
		`{"tool":"Bash","input":{"command":"git push"}}` + "\r",
		long,
		`{"tool":"Read","input":{"file_path":"/p/x"},"cwd":"/p","read_only":"no"}`,
		`{"tool":"Read","input":{"file_path":"/p/x"},"cwd":"/p","tool":"Bash"}`,
		`{"tool":"Bash","input":{"command":"ls"},"cwd":"/p"}`, // no final newline
	}, "\n")
	var out bytes.Buffer
	st, err := checkLoop(cfg, defaults{cwd: "/"}, strings.NewReader(in), &out, 2)
	if err != nil {
		t.Fatal(err)
	}
	rs := decodeAnswers(t, out.String())
	if st.lines != 5 || len(rs) != 5 {
		t.Fatalf("got %d answers (%d counted), want 5", len(rs), st.lines)
	}
	want := []struct{ decision, kind, msg string }{
		{"ask", "rule", ""},
		{"deny", "invalid", "over the"},
		{"deny", "invalid", `"read_only" must be a boolean`},
		{"deny", "invalid", "not valid JSON"},
		{"allow", "read_only", ""},
	}
	for i, w := range want {
		r := rs[i]
		if r.Decision != w.decision || string(r.Reason.Kind) != w.kind || !strings.Contains(r.Reason.Message, w.msg) {
			t.Errorf("answer %d = %s %s %q, want %s %s %q", i, r.Decision, r.Reason.Kind, r.Reason.Message, w.decision, w.kind, w.msg)
		}
	}
}

// TestCheckLoopInteractive sends one request at a time and waits for each
// answer before sending the next: answers must not wait for more input.
func TestCheckLoopInteractive(t *testing.T) {
	cfg := benchConfig(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := checkLoop(cfg, defaults{cwd: "/p"}, inR, outW, 2)
		outW.Close()
		done <- err
	}()
	answers := bufio.NewReader(outR)
	for i := range 3 {
		if _, err := io.WriteString(inW, `{"tool":"Bash","input":{"command":"git push"}}`+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			l, _ := answers.ReadString('\n')
			got <- l
		}()
		select {
		case l := <-got:
			if !strings.HasPrefix(l, `{"decision":"ask"`) {
				t.Fatalf("answer %d = %q", i, l)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to request %d while more input is pending", i)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestCheckLoopWriteError: a closed output ends the loop with an error.
func TestCheckLoopWriteError(t *testing.T) {
	cfg := benchConfig(t)
	in := benchLines(5000, "/p")
	_, err := checkLoop(cfg, defaults{cwd: "/p"}, bytes.NewReader(in), failWriter{}, 2)
	if err == nil || !strings.Contains(err.Error(), "writing standard output") {
		t.Fatalf("err = %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
