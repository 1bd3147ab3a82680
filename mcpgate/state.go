package mcpgate

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// The reasons a request state is refused. Each is wrapped with detail.
var (
	// ErrUnasked: an answer (inputResponses) came without a request state
	// the proxy issued: the client tried to approve a call nobody asked
	// about.
	ErrUnasked = errors.New("an answer the proxy never asked for")
	// ErrForged: the state is malformed or its signature does not verify.
	ErrForged = errors.New("a request state the proxy did not issue")
	// ErrAltered: the state was issued for another tool, other arguments or
	// another policy revision.
	ErrAltered = errors.New("a request state issued for a different call")
	// ErrExpired: the state is past its expiry.
	ErrExpired = errors.New("an expired request state")
	// ErrReplayed: the state was already used once.
	ErrReplayed = errors.New("a request state that was already used")
)

// stateVersion prefixes every state the proxy mints.
const stateVersion = "tg1"

// maxStateLen bounds the request state the verifier reads.
const maxStateLen = 4096

// statePayload is what a request state binds, signed.
type statePayload struct {
	Nonce    string `json:"n"`
	Tool     string `json:"t"`
	Args     string `json:"a"` // argsDigest of the call's arguments
	Revision string `json:"r"`
	Expires  int64  `json:"e"` // Unix milliseconds
}

// stateSigner mints and verifies the request state of input_required
// answers: an HMAC-SHA256 over a random nonce, the tool, a digest of the
// arguments, the policy revision and an expiry. A state verifies once.
type stateSigner struct {
	key []byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]int64 // nonce → expiry (ms), until it expires
}

// newStateSigner returns a signer with a fresh random key (nil: a random
// 32-byte key) and clock (nil: time.Now).
func newStateSigner(key []byte, now func() time.Time) (*stateSigner, error) {
	if key == nil {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("request-state key: %v", err)
		}
	}
	if len(key) < 16 {
		return nil, errors.New("request-state key shorter than 16 bytes")
	}
	if now == nil {
		now = time.Now
	}
	return &stateSigner{key: bytes.Clone(key), now: now, used: map[string]int64{}}, nil
}

// mint returns a state for one ask, valid for ttl.
func (s *stateSigner) mint(tool, args, revision string, ttl time.Duration) (string, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return s.mintNonce(nonce, tool, args, revision, ttl)
}

// mintNonce is mint with the nonce given.
func (s *stateSigner) mintNonce(nonce []byte, tool, args, revision string, ttl time.Duration) (string, error) {
	p := statePayload{Nonce: hex.EncodeToString(nonce), Tool: tool, Args: args, Revision: revision,
		Expires: s.now().Add(ttl).UnixMilli()}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString(body)
	return stateVersion + "." + enc + "." + s.sign(enc), nil
}

func (s *stateSigner) sign(enc string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(stateVersion + "." + enc))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verify checks a state against the call it comes back with and uses it
// up. The error wraps one of ErrUnasked, ErrForged, ErrAltered, ErrExpired
// and ErrReplayed.
func (s *stateSigner) verify(state, tool, args, revision string) error {
	if state == "" {
		return ErrUnasked
	}
	if len(state) > maxStateLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrForged, maxStateLen)
	}
	parts := strings.Split(state, ".")
	if len(parts) != 3 || parts[0] != stateVersion {
		return fmt.Errorf("%w: malformed", ErrForged)
	}
	want := s.sign(parts[1])
	if !hmac.Equal([]byte(want), []byte(parts[2])) {
		return fmt.Errorf("%w: bad signature", ErrForged)
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return fmt.Errorf("%w: %v", ErrForged, err)
	}
	var p statePayload
	if err := json.Unmarshal(body, &p); err != nil || p.Nonce == "" {
		return fmt.Errorf("%w: unreadable payload", ErrForged)
	}
	now := s.now().UnixMilli()
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, exp := range s.used {
		if exp < now {
			delete(s.used, n)
		}
	}
	if _, ok := s.used[p.Nonce]; ok {
		return ErrReplayed
	}
	if p.Expires < now {
		return fmt.Errorf("%w: it expired at %s", ErrExpired, time.UnixMilli(p.Expires).UTC().Format(time.RFC3339))
	}
	// Used up from here on, whatever the outcome: a state shown with the
	// wrong call is burnt, not kept for a second try.
	s.used[p.Nonce] = p.Expires
	switch {
	case p.Tool != tool:
		return fmt.Errorf("%w: issued for tool %q, not %q", ErrAltered, p.Tool, tool)
	case p.Args != args:
		return fmt.Errorf("%w: the arguments changed since the person was asked", ErrAltered)
	case p.Revision != revision:
		return fmt.Errorf("%w: the policy changed since the person was asked", ErrAltered)
	}
	return nil
}

// argsDigest is the SHA-256 of a canonical encoding of a call's arguments:
// object keys sorted, numbers as written, no insignificant space. Absent
// arguments and null are {}. Invalid JSON digests as its raw bytes, which
// no canonical encoding equals.
func argsDigest(raw json.RawMessage) string {
	canon := []byte("{}")
	if t := bytes.TrimSpace(raw); len(t) > 0 && string(t) != "null" {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				canon = b
			}
		} else {
			canon = append([]byte("invalid:"), t...)
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}
