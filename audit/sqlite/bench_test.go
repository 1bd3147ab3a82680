package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/audittest"
	"github.com/toolgate/toolgate/audit/sqlite"
)

// BenchmarkSQLiteRecord records from many goroutines at once, as a busy
// agent host would; concurrent Records are group-committed. It reports
// events per second (the target is at least 20,000).
func BenchmarkSQLiteRecord(b *testing.B) {
	for _, durable := range []bool{false, true} {
		name := "normal"
		if durable {
			name = "durable"
		}
		b.Run(name, func(b *testing.B) {
			s, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"), &sqlite.Options{Durable: durable})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			tmpl := audittest.Event(1)
			var n atomic.Uint64
			b.SetParallelism(64)
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				e := tmpl.Clone()
				for pb.Next() {
					e.ID = fmt.Sprintf("%032x", n.Add(1))
					if err := s.Record(ctx, e); err != nil {
						b.Error(err)
						return
					}
				}
			})
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.N)/cpu.Seconds(), "events/cpu-s")
		})
	}
}

// BenchmarkJSONLRecord records to a file from many goroutines.
func BenchmarkJSONLRecord(b *testing.B) {
	s, err := audit.CreateJSONL(filepath.Join(b.TempDir(), "bench.jsonl"), false)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if err := s.Record(ctx, audittest.Event(i)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// cpuTime is the process's user+system CPU time: on a shared, loaded
// machine events per CPU-second shows the sink's capacity better than
// wall-clock throughput.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
