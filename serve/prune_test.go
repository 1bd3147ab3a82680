package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store"
)

// TestLogRetention: with a retention window, what is older than it leaves
// the decision log, and what is newer stays.
func TestLogRetention(t *testing.T) {
	st, err := store.OpenSQLite(context.Background(), t.TempDir()+"/toolgate.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := newEnv(t, st, func(o *Options) { o.LogRetention = 24 * time.Hour })
	ctx := context.Background()
	old := e.clock.now()
	if err := st.Log(ctx, []store.Entry{{Time: old, Event: "decision", Outcome: "allow", Message: "old"}}); err != nil {
		t.Fatal(err)
	}
	e.clock.add(25 * time.Hour)
	if err := st.Log(ctx, []store.Entry{{Time: e.clock.now(), Event: "decision", Outcome: "deny", Message: "new"}}); err != nil {
		t.Fatal(err)
	}
	e.srv.prune(ctx)
	left, err := st.Entries(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, l := range left {
		msgs = append(msgs, l.Message)
	}
	for _, m := range msgs {
		if m == "old" {
			t.Errorf("an entry older than the retention window is still there: %q", msgs)
		}
	}
	found := false
	for _, m := range msgs {
		found = found || m == "new"
	}
	if !found {
		t.Errorf("the newer entry was pruned: %q", msgs)
	}
	if _, body := e.do("GET", "/metrics", e.admin, ""); !strings.Contains(body, "\ntoolgate_decision_log_pruned_total 1\n") {
		t.Errorf("metrics do not count the pruned entry")
	}
}
