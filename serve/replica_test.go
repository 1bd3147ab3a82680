package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/toolgate/toolgate/store"
)

// postgresDSN returns a DSN of a fresh schema of the test database; it
// skips without TOOLGATE_TEST_POSTGRES, except under CI=1, where it fails.
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("TOOLGATE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TOOLGATE_TEST_POSTGRES is not set (run .ci/postgres-setup); PostgreSQL tests must run in CI")
		}
		t.Skip("TOOLGATE_TEST_POSTGRES is not set: skipping the PostgreSQL replica tests (.ci/postgres-setup prints one)")
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "s_" + hex.EncodeToString(b[:])
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// replicas are two services on one PostgreSQL database, sharing the policy
// and token files, each with its background work running.
type replicas struct {
	a, b *testEnv
}

func openPG(t *testing.T, dsn string) store.Store {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newReplicas(t *testing.T) *replicas {
	dsn := postgresDSN(t)
	a := newEnv(t, openPG(t, dsn))
	// B shares A's files: same policy, same tokens.
	b := &testEnv{t: t, dir: a.dir, policyFile: a.policyFile, agent: a.agent, approver: a.approver, admin: a.admin, clock: a.clock}
	srv, err := New(context.Background(), &Options{Policy: PolicySource{Configs: []string{a.policyFile}}, Store: openPG(t, dsn),
		TokensFile: filepath.Join(a.dir, "tokens"), ReloadInterval: -1, Cwd: "/work", Now: a.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	b.srv = srv
	b.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(func() { b.ts.Close(); srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { a.srv.Run(ctx) })
	wg.Go(func() { b.srv.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return &replicas{a: a, b: b}
}

func TestReplicasApproval(t *testing.T) {
	r := newReplicas(t)
	call := `{"tool":"Bash","input":{"command":"git push origin main"},"session":"s1"}`
	_, d := r.a.decide(r.a.agent, call)
	if d.Approval == nil {
		t.Fatalf("no approval: %+v", d)
	}
	// The record made on A is the one B finds.
	if _, d2 := r.b.decide(r.b.agent, call); d2.Approval == nil || d2.Approval.ID != d.Approval.ID {
		t.Fatalf("B made another record: %+v", d2.Approval)
	}
	if code, body := r.a.do("POST", "/v1/approvals/"+d.Approval.ID+"/approve", r.a.approver, ""); code != 200 {
		t.Fatalf("approve on A: %d %s", code, body)
	}
	// Retried on B and A at once, many times: exactly one allow.
	var allows atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		env := r.a
		if i%2 == 1 {
			env = r.b
		}
		wg.Go(func() {
			code, text := env.do("POST", "/v1/decide", env.agent, call)
			var resp response
			json.Unmarshal([]byte(text), &resp)
			if code != 200 {
				t.Errorf("retry: %d %s", code, text)
			}
			if resp.Decision == "allow" {
				allows.Add(1)
			}
		})
	}
	wg.Wait()
	if allows.Load() != 1 {
		t.Fatalf("%d retries were allowed, want exactly 1", allows.Load())
	}
}

func TestReplicasSessionRule(t *testing.T) {
	r := newReplicas(t)
	call := `{"tool":"Bash","input":{"command":"make deploy"},"session":"s7"}`
	if _, d := r.b.decide(r.b.agent, call); d.Decision != "ask" {
		t.Fatalf("before: %s", d.Decision)
	}
	if code, body := r.a.do("POST", "/v1/session-rules", r.a.admin, `{"session":"s7","effect":"allow","rule":"Bash(make deploy)"}`); code != 200 {
		t.Fatalf("add on A: %d %s", code, body)
	}
	// A applies it before answering; B learns through NOTIFY.
	if _, d := r.a.decide(r.a.agent, call); d.Decision != "allow" {
		t.Fatalf("A: %+v", d)
	}
	start := time.Now()
	for {
		_, d := r.b.decide(r.b.agent, call)
		if d.Decision == "allow" {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the session rule added on A never held on B")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("the rule held on B after %v", time.Since(start))
	if code, _ := r.b.do("DELETE", "/v1/session-rules", r.b.admin, `{"session":"s7","effect":"allow","rule":"Bash(make deploy)"}`); code != 200 {
		t.Fatal("remove on B")
	}
	start = time.Now()
	for {
		if _, d := r.a.decide(r.a.agent, call); d.Decision == "ask" {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the rule removed on B still held on A")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReloadUnderLoad rewrites the policy while requests run: every
// request is answered, by the old or the new revision, never an error.
func TestReloadUnderLoad(t *testing.T) {
	e := newEnv(t, nil)
	revs := map[string]bool{e.srv.Revision(): true}
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var n, bad atomic.Int64
	seen := map[string]bool{}
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, text := e.do("POST", "/v1/decide", e.agent, `{"tool":"Bash","input":{"command":"npm run test"}}`)
				var r response
				if json.Unmarshal([]byte(text), &r) != nil || code != 200 || r.Decision != "allow" {
					bad.Add(1)
				}
				mu.Lock()
				seen[r.Revision] = true
				mu.Unlock()
				n.Add(1)
			}
		})
	}
	for i := range 20 {
		text := testPolicy + fmt.Sprintf("protected_paths: [\".secret%d\"]\n", i)
		if i%5 == 4 {
			text = "version: 1\nallow: 7\n" // broken: keeps the old policy
		}
		os.WriteFile(e.policyFile, []byte(text), 0o644)
		e.srv.Reload(context.Background())
		mu.Lock()
		revs[e.srv.Revision()] = true
		mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d of %d requests were not answered with the policy's allow", bad.Load(), n.Load())
	}
	for r := range seen {
		if !revs[r] {
			t.Fatalf("a response carried revision %q, which was never in force", r)
		}
	}
	t.Logf("%d requests over %d revisions", n.Load(), len(seen))
}

// TestKilledReplica runs replica A as a separate process, kills it with
// SIGKILL after it recorded an ask, and checks that replica B still has the
// approval, uses it once, and that a restarted A does not use it again.
func TestKilledReplica(t *testing.T) {
	dsn := postgresDSN(t)
	b := newEnv(t, openPG(t, dsn), func(o *Options) { o.Now = time.Now }) // A runs on the real clock too
	startA := func() (*exec.Cmd, string) {
		urlFile := filepath.Join(t.TempDir(), "url")
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$")
		cmd.Env = append(os.Environ(), "TOOLGATE_REPLICA_DSN="+dsn, "TOOLGATE_REPLICA_POLICY="+b.policyFile,
			"TOOLGATE_REPLICA_TOKENS="+filepath.Join(b.dir, "tokens"), "TOOLGATE_REPLICA_URL="+urlFile)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		for range 400 {
			if u, err := os.ReadFile(urlFile); err == nil && len(u) > 0 {
				return cmd, strings.TrimSpace(string(u))
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatal("replica A did not start")
		return nil, ""
	}
	post := func(url, body string) response {
		req, _ := http.NewRequest("POST", url+"/v1/decide", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+b.agent)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r response
		json.NewDecoder(resp.Body).Decode(&r)
		return r
	}
	call := `{"tool":"Bash","input":{"command":"terraform apply"},"session":"k1"}`
	a, url := startA()
	d := post(url, call)
	if d.Approval == nil {
		t.Fatalf("A: %+v", d)
	}
	a.Process.Kill() // SIGKILL: no shutdown, no flush
	a.Wait()
	if code, body := b.do("POST", "/v1/approvals/"+d.Approval.ID+"/approve", b.approver, ""); code != 200 {
		t.Fatalf("approve on B after A died: %d %s", code, body)
	}
	// A comes back and B serves: one allow between them.
	_, url = startA()
	got := []string{post(url, call).Decision}
	_, r := b.decide(b.agent, call)
	got = append(got, r.Decision, post(url, call).Decision)
	allows := 0
	for _, g := range got {
		if g == "allow" {
			allows++
		}
	}
	if allows != 1 {
		t.Fatalf("answers %v: want exactly one allow", got)
	}
}

// TestReplicaProcess is replica A of TestKilledReplica when run as a child
// process; otherwise it does nothing.
func TestReplicaProcess(t *testing.T) {
	dsn := os.Getenv("TOOLGATE_REPLICA_DSN")
	if dsn == "" {
		t.Skip("run by TestKilledReplica")
	}
	st, err := store.OpenPostgres(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), &Options{Policy: PolicySource{Configs: []string{os.Getenv("TOOLGATE_REPLICA_POLICY")}},
		Store: st, TokensFile: os.Getenv("TOOLGATE_REPLICA_TOKENS"), Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("TOOLGATE_REPLICA_URL"), []byte("http://"+ln.Addr().String()), 0o644)
	Serve(context.Background(), ln, srv, nil) // until killed
}
