package mcpgate

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseServers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []ServerSpec
		err  string // substring of the error; "" none
	}{
		{name: "claude mcpServers", in: `{"mcpServers": {
			"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"A": "1"}},
			"remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`,
			want: []ServerSpec{
				{Name: "fs", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"A": "1"}},
				{Name: "remote", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
			}},
		{name: "gemini httpUrl and timeout in ms", in: `{"mcpServers": {"g": {"httpUrl": "http://127.0.0.1:9/mcp", "timeout": 30000, "trust": true}}}`,
			want: []ServerSpec{{Name: "g", URL: "http://127.0.0.1:9/mcp", Timeout: 30 * time.Second}}},
		{name: "cursor cwd, disabled entry", in: `{"mcpServers": {"a": {"command": "srv", "cwd": "/w"}, "b": {"command": "x", "disabled": true}}}`,
			want: []ServerSpec{{Name: "a", Command: []string{"srv"}, Dir: "/w"}}},
		{name: "toolgate form", in: `{"version": 1, "servers": {"db": {"command": ["db-mcp", "--ro"], "timeout": "5s", "trust_annotations": true}}}`,
			want: []ServerSpec{{Name: "db", Command: []string{"db-mcp", "--ro"}, Timeout: 5 * time.Second, TrustAnnotations: true}}},
		{name: "toolgate form rejects unknown keys", in: `{"version": 1, "servers": {"db": {"command": ["x"], "comand": 1}}}`, err: "unknown field"},
		{name: "toolgate form wants argv", in: `{"version": 1, "servers": {"db": {"command": "x"}}}`, err: "takes an array"},
		{name: "wrong version", in: `{"version": 2, "servers": {"db": {"command": ["x"]}}}`, err: "want 1"},
		{name: "duplicate server", in: `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, err: `duplicate key "a"`},
		{name: "double underscore name", in: `{"mcpServers": {"a__b": {"command": "x"}}}`, err: `"__"`},
		{name: "name with a space", in: `{"mcpServers": {"a b": {"command": "x"}}}`, err: "server name"},
		{name: "both command and url", in: `{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}`, err: "both"},
		{name: "neither", in: `{"mcpServers": {"a": {}}}`, err: "neither"},
		{name: "sse refused", in: `{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}`, err: "not supported"},
		{name: "bad url", in: `{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}`, err: "http or https"},
		{name: "empty command", in: `{"mcpServers": {"a": {"command": ""}}}`, err: "empty"},
		{name: "no servers", in: `{"mcpServers": {}}`, err: "no server"},
		{name: "not mcpServers", in: `{"servers": {}}`, err: "mcpServers"},
		{name: "trailing data", in: `{"mcpServers": {"a": {"command": "x"}}} {}`, err: "after"},
		{name: "every problem at once", in: `{"mcpServers": {"a__b": {"command": "x"}, "c": {}}}`, err: "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseServers([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if got != nil {
					t.Errorf("servers returned with an error: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzParseServers(f *testing.F) {
	f.Add(`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}}}`)
	f.Add(`{"version": 1, "servers": {"db": {"command": ["db"], "timeout": "5s"}}}`)
	f.Add(`{"mcpServers": {"r": {"url": "https://h/mcp", "headers": {"a": "b"}}}}`)
	f.Add(`{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		specs, err := ParseServers([]byte(in))
		if err != nil {
			if specs != nil {
				t.Fatal("servers returned with an error")
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range specs {
			if ValidServerName(s.Name) != nil || seen[s.Name] {
				t.Fatalf("bad or repeated name %q accepted", s.Name)
			}
			seen[s.Name] = true
			if (len(s.Command) == 0) == (s.URL == "") {
				t.Fatalf("server %q: want exactly one of command and url: %+v", s.Name, s)
			}
		}
	})
}
