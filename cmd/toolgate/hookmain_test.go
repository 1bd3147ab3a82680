package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

type hookCheckerFunc func(toolgate.Call) toolgate.Decision

func (f hookCheckerFunc) Decide(c toolgate.Call) toolgate.Decision { return f(c) }

const hookClaudeBash = `{"session_id":"s","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t"}`

func TestHookMain(t *testing.T) {
	var gotCwd string
	var gotConfigs []string
	build := func(cwd string, configs []string) (toolgate.Checker, error) {
		gotCwd, gotConfigs = cwd, configs
		return hookCheckerFunc(func(c toolgate.Call) toolgate.Decision {
			return toolgate.Decision{Outcome: toolgate.Ask, Reasons: []toolgate.Reason{{Kind: toolgate.KindDefault}}}
		}), nil
	}
	var stdout, stderr bytes.Buffer
	exit := hookMain([]string{"claude", "--config", "a.yaml", "--config", "cli=/b.toml", "--ask-policy", "deny", "--home", "/h"},
		strings.NewReader(hookClaudeBash), &stdout, &stderr, build)
	if exit != 0 || !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) {
		t.Errorf("exit %d\nstdout %s\nstderr %s", exit, stdout.String(), stderr.String())
	}
	if gotCwd != "/p" || !reflect.DeepEqual(gotConfigs, []string{"a.yaml", "cli=/b.toml"}) {
		t.Errorf("build got %q %q", gotCwd, gotConfigs)
	}
}

func TestHookMainFailures(t *testing.T) {
	okBuild := func(string, []string) (toolgate.Checker, error) {
		return hookCheckerFunc(func(toolgate.Call) toolgate.Decision { return toolgate.Decision{Outcome: toolgate.Allow} }), nil
	}
	badBuild := func(string, []string) (toolgate.Checker, error) {
		return nil, errors.New("/p/.toolgate/policy.yaml:1:1: bad\n/p/.toolgate/policy.yaml:2:1: worse")
	}
	for _, tt := range []struct {
		name  string
		args  []string
		build func(string, []string) (toolgate.Checker, error)
		want  string
	}{
		{"no args", nil, okBuild, "usage"},
		{"unknown client", []string{"copilot"}, okBuild, "unknown client"},
		{"bad flag", []string{"claude", "--nope"}, okBuild, "not defined"},
		{"extra arg", []string{"claude", "x"}, okBuild, "unexpected argument"},
		{"bad policy", []string{"gemini", "--ask-policy", "maybe"}, okBuild, "unknown ask policy"},
		{"codex cannot ask", []string{"codex", "--ask-policy", "ask"}, okBuild, "codex cannot ask"},
		{"config error", []string{"claude"}, badBuild, "policy.yaml:2:1: worse"},
		{"nil build", []string{"claude"}, nil, "no configuration loader"},
		{"nil checker", []string{"claude"}, func(string, []string) (toolgate.Checker, error) { return nil, nil }, "no checker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			exit := hookMain(tt.args, strings.NewReader(hookClaudeBash), &stdout, &stderr, tt.build)
			if exit != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", exit, stdout.String(), stderr.String(), tt.want)
			}
		})
	}
}

func TestHookMainHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"claude", "--help"}, {"install", "--help"}, {"install", "claude", "-h"}} {
		var stdout, stderr bytes.Buffer
		if exit := hookMain(args, strings.NewReader(""), &stdout, &stderr, nil); exit != 0 || !strings.Contains(stdout.String(), "usage:") {
			t.Errorf("%q: exit %d, stdout %q", args, exit, stdout.String())
		}
	}
}

func TestHookMainInstall(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	exit := hookMain([]string{"install", "claude", "--project", "--dir", dir, "--dry-run", "--command", "/bin/toolgate hook claude"}, nil, &stdout, &stderr, nil)
	if exit != 0 || !strings.Contains(stdout.String(), `"onFailure": "block"`) || !strings.Contains(stderr.String(), filepath.Join(dir, ".claude", "settings.json")) {
		t.Errorf("dry run: exit %d\n%s\n%s", exit, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if exit := hookMain([]string{"install", "cursor", "--dir", dir, "--command", "/bin/toolgate hook cursor", "--no-check"}, nil, &stdout, &stderr, nil); exit != 0 {
		t.Errorf("install: exit %d %s", exit, stderr.String())
	}
	if exit := hookMain([]string{"uninstall", "cursor", "--dir", dir}, nil, &stdout, &stderr, nil); exit != 0 {
		t.Errorf("uninstall: exit %d %s", exit, stderr.String())
	}
	// A test binary is a temporary build: installing it is refused.
	if exit := hookMain([]string{"install", "claude", "--dir", dir}, nil, &stdout, &stderr, nil); exit != 1 || !strings.Contains(stderr.String(), "temporary") {
		t.Errorf("install from a test binary: exit %d %s", exit, stderr.String())
	}
	for _, args := range [][]string{{"install"}, {"install", "vim"}, {"install", "claude", "--project", "--user"}, {"uninstall", "claude", "x"}} {
		if exit := hookMain(args, nil, &stdout, &stderr, nil); exit != 2 {
			t.Errorf("%q: exit %d, want 2", args, exit)
		}
	}
}
