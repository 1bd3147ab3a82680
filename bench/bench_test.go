package bench

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
)

// rounds repeats BenchmarkDecide's whole set, round after round, so that a
// burst of load from other processes on a shared machine hits one round
// rather than all the runs of one benchmark (as -count's back-to-back runs
// would). With more than one round, names start with round=N, which
// cmd/benchtable folds into the median.
var rounds = flag.Int("rounds", 1, "run BenchmarkDecide's benchmarks this many times, round after round")

// BenchmarkDecide measures one decision per engine, policy and call, from
// the hook payload's bytes to the outcome. Names are
// [round=R/]shape=S/rules=N/call=C/engine=E: the engines of one shape, size
// and call run one after another, and a script pairs them by everything
// before engine=. Engines are built lazily, once per policy for all rounds,
// outside the timing, so that -bench can select a part without compiling
// the rest.
func BenchmarkDecide(b *testing.B) {
	cache := map[string]Engine{}
	if *rounds <= 1 {
		decideRound(b, cache)
		return
	}
	for r := 1; r <= *rounds; r++ {
		b.Run(fmt.Sprintf("round=%d", r), func(b *testing.B) { decideRound(b, cache) })
	}
}

func decideRound(b *testing.B, cache map[string]Engine) {
	for _, shape := range Shapes {
		b.Run("shape="+string(shape), func(b *testing.B) {
			for _, n := range Sizes {
				b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
					var p *Policy
					for _, c := range BenchCalls {
						payload := c.Payload()
						b.Run("call="+c.Name, func(b *testing.B) {
							for _, eb := range Engines {
								b.Run("engine="+eb.Name, func(b *testing.B) {
									key := fmt.Sprintf("%s/%d/%s", shape, n, eb.Name)
									e := cache[key]
									if e == nil {
										if p == nil {
											p = Generate(shape, n)
										}
										var err error
										if e, err = eb.Build(p); err != nil {
											b.Fatal(err)
										}
										cache[key] = e
									}
									b.ReportAllocs()
									for b.Loop() {
										if got := e.Decide(payload); got != Allow {
											b.Fatalf("%s decided %s, want allow", eb.Name, got)
										}
									}
								})
							}
						})
					}
				})
			}
		})
	}
}

// CompileSizes are the policy sizes whose compilation is measured.
var CompileSizes = []int{10000, 100000}

// BenchmarkCompile measures building each engine from the generated policy
// (translating it to the engine's language included), and reports the live
// heap the built engine holds per rule (runtime.MemStats after GC, with and
// without the engine).
func BenchmarkCompile(b *testing.B) {
	for _, shape := range Shapes {
		b.Run("shape="+string(shape), func(b *testing.B) {
			for _, n := range CompileSizes {
				b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
					p := Generate(shape, n)
					for _, eb := range Engines {
						b.Run("engine="+eb.Name, func(b *testing.B) {
							b.ReportAllocs()
							var e Engine
							for b.Loop() {
								var err error
								if e, err = eb.Build(p); err != nil {
									b.Fatal(err)
								}
							}
							b.ReportMetric(float64(liveHeap(&e))/float64(n), "heapB/rule")
						})
					}
				})
			}
		})
	}
}

// liveHeap returns the heap bytes that *e keeps alive: the live heap after
// a collection with *e, less the live heap after one without it.
func liveHeap(e *Engine) uint64 {
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	runtime.KeepAlive(*e)
	*e = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	if with.HeapAlloc < without.HeapAlloc {
		return 0
	}
	return with.HeapAlloc - without.HeapAlloc
}
