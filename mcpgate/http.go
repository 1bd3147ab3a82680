package mcpgate

import (
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler returns the proxy as a streamable-HTTP MCP endpoint that
// demands "Authorization: Bearer <token>" on every request (compared in
// constant time). The token must be at least 16 characters. The SDK's own
// protection against DNS rebinding stays on; serve it on a loopback
// address only (see [CheckLoopback]).
func (p *Proxy) HTTPHandler(token string) (http.Handler, error) {
	if len(token) < 16 {
		return nil, errors.New("mcpgate: the bearer token must be at least 16 characters")
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return p.server }, &mcp.StreamableHTTPOptions{
		SessionTimeout: 0,
	})
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
			http.Error(w, "toolgate: missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}

// CheckLoopback returns an error unless addr (host:port) names a loopback
// address: the downstream HTTP endpoint is for agents on this machine.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return errors.New("mcpgate: listen address " + addr + " is not a loopback address (use 127.0.0.1:PORT)")
	}
	return nil
}
