package serve

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Role is what a token may do.
type Role string

// Roles. An agent asks for decisions; an approver answers approvals; an
// admin manages session rules and reloads, and may do what the others do.
// An agent can never answer an approval, so it cannot approve its own ask.
const (
	RoleAgent    Role = "agent"
	RoleApprover Role = "approver"
	RoleAdmin    Role = "admin"
)

// Identity is the authenticated caller of a request.
type Identity struct {
	Name string
	Role Role
	// hash is the SHA-256 of the caller's token, for deriving its CSRF key.
	hash [32]byte
}

// can reports whether the identity may perform an action needing one of
// roles.
func (id Identity) can(roles ...Role) bool {
	for _, r := range roles {
		if id.Role == r {
			return true
		}
	}
	return false
}

// tokenSet maps a token's SHA-256 to its identity.
type tokenSet struct {
	byHash map[[32]byte]Identity
}

// HashToken returns the form in which a token file stores a token.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(h[:])
}

// NewToken returns a fresh random token.
func NewToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "tg_" + hex.EncodeToString(b[:])
}

// TokenLine is the token file line of a token: "ROLE NAME sha256:HEX".
func TokenLine(role Role, name, token string) string {
	return fmt.Sprintf("%s %s %s", role, name, HashToken(token))
}

// parseTokens reads a token file: one token a line, "ROLE NAME sha256:HEX"
// (the token's SHA-256, never the token itself), blank lines and lines
// starting with # ignored. Names must be unique, so that a log entry's
// identity names one token.
func parseTokens(path string, data []byte) (*tokenSet, error) {
	ts := &tokenSet{byHash: map[[32]byte]Identity{}}
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want \"ROLE NAME sha256:HEX\"", path, n)
		}
		role := Role(f[0])
		switch role {
		case RoleAgent, RoleApprover, RoleAdmin:
		default:
			return nil, fmt.Errorf("%s:%d: unknown role %q (want agent, approver or admin)", path, n, f[0])
		}
		hexs, ok := strings.CutPrefix(f[2], "sha256:")
		raw, err := hex.DecodeString(hexs)
		if !ok || err != nil || len(raw) != 32 {
			return nil, fmt.Errorf("%s:%d: the token must be given as sha256:<64 hex digits> (toolgate serve token prints one)", path, n)
		}
		if names[f[1]] {
			return nil, fmt.Errorf("%s:%d: a second token named %q", path, n, f[1])
		}
		names[f[1]] = true
		var h [32]byte
		copy(h[:], raw)
		ts.byHash[h] = Identity{Name: f[1], Role: role, hash: h}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(ts.byHash) == 0 {
		return nil, fmt.Errorf("%s: no tokens", path)
	}
	return ts, nil
}

// loadTokens reads the token file at path.
func loadTokens(path string) (*tokenSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseTokens(path, data)
}

// lookup returns the identity of a presented token.
func (ts *tokenSet) lookup(token string) (Identity, bool) {
	if ts == nil || token == "" {
		return Identity{}, false
	}
	// A token (51 bytes as NewToken makes them) is copied into a stack
	// buffer: []byte(token) would allocate for anything over 32 bytes.
	var buf [64]byte
	id, ok := ts.byHash[sha256.Sum256(append(buf[:0], token...))]
	return id, ok
}

// bearer returns the bearer token of r, or "".
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
