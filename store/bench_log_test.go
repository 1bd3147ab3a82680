package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLogSQLite writes the decision log to SQLite in batches of 400
// entries (about what serve's log writer gathers in its 20 ms at 20,000
// decisions/s); ns/op is per batch, and entry-µs the cost of one entry.
func BenchmarkLogSQLite(b *testing.B) {
	ctx := context.Background()
	st, err := OpenSQLite(ctx, filepath.Join(b.TempDir(), "log.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	batch := make([]Entry, 400)
	for i := range batch {
		batch[i] = Entry{Time: time.Now(), Event: "decision", Caller: "ci-agent", Tool: "Bash", Outcome: "allow",
			Kind: "rule", Rule: "Bash(npm run test:*)", Revision: "sha256:0123456789abcdef", Message: "allowed by Bash(npm run test:*)", Micros: 7}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := st.Log(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(batch)), "entry-µs")
}
