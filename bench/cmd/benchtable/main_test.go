package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkDecide/shape=mixed/rules=20/call=BashSimple/engine=toolgate-2   	  100	  4000 ns/op	  900 B/op	  12 allocs/op
BenchmarkDecide/round=2/shape=mixed/rules=20/call=BashSimple/engine=toolgate-2   	  100	  6000 ns/op	  900 B/op	  12 allocs/op
BenchmarkDecide/round=3/shape=mixed/rules=20/call=BashSimple/engine=toolgate-2   	  100	  5000 ns/op	  900 B/op	  12 allocs/op
BenchmarkDecide/shape=mixed/rules=20/call=BashSimple/engine=cedar-2      	  100	  2500 ns/op	 1500 B/op	  30 allocs/op
BenchmarkDecide/shape=mixed/rules=20/call=BashSimple/engine=opa-2        	  100	 50000 ns/op	 8000 B/op	 150 allocs/op
BenchmarkDecide/shape=mixed/rules=20/call=BashSimple/engine=floor-2      	  100	   500 ns/op	  300 B/op	   8 allocs/op
BenchmarkDecide/shape=mixed/rules=100000/call=BashSimple/engine=toolgate-2	  10	  6500 ns/op	  900 B/op	  12 allocs/op
BenchmarkDecide/shape=mixed/rules=100000/call=BashSimple/engine=cedar-2   	   1	 1234567890 ns/op	 1500 B/op	  30 allocs/op
BenchmarkDecide/shape=mixed/rules=20/call=Read/engine=toolgate-2         	  100	   800 ns/op	  100 B/op	   1 allocs/op
BenchmarkCompile/shape=mixed/rules=10000/engine=toolgate-2               	   20	  25000000 ns/op	 120.5 heapB/rule	 9 B/op	 1 allocs/op
BenchmarkCompile/shape=mixed/rules=10000/engine=opa-2                    	    1	 1700000000 ns/op	 9000 heapB/rule	 9 B/op	 1 allocs/op
--- FAIL: BenchmarkX
BenchmarkDecide/shape=mixed/rules=20/call=Read/engine=opa-2 was not a result
ok  	github.com/toolgate/toolgate/bench	1.0s
`

func TestRender(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	render(&b, res)
	out := b.String()
	for _, want := range []string{
		// median of 4000, 6000, 5000 (runs and rounds alike); cedar 2500/5000, OPA 50000/5000, floor 500/5000
		"| mixed | 20 | BashSimple | 5.00 µs | 2.50 µs (0.50×) | 50.0 µs (10.0×) | 500 ns (0.10×) | 12, 900 |",
		"| mixed | 100,000 | BashSimple | 6.50 µs | 1.23 s (189934×) | – | – | 12, 900 |",
		"| mixed | 20 | Read | 800 ns | – | – | – | 1, 100 |",
		"| mixed | BashSimple | 1.30× |",
		"| mixed | 10,000 | 25.0 ms, 120 B/rule | – | 1.70 s, 9000 B/rule | – |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "| 20 | BashSimple") > strings.Index(out, "| 20 | Read") {
		t.Errorf("BashSimple should come before Read:\n%s", out)
	}
}

func TestMin(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	*useMin = true
	defer func() { *useMin = false }()
	var b strings.Builder
	render(&b, res)
	if want := "| mixed | 20 | BashSimple | 4.00 µs | 2.50 µs (0.62×) |"; !strings.Contains(b.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}

func TestParseBadValue(t *testing.T) {
	_, err := parse(strings.NewReader("BenchmarkDecide/shape=mixed/rules=20/call=Read/engine=opa-2 10 x ns/op\n"))
	if err == nil {
		t.Fatal("a non-numeric value parsed")
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want string
	}{{999.6, "1000 ns"}, {1000, "1.00 µs"}, {12345, "12.3 µs"}, {999999, "1000 µs"}, {2.5e9, "2.50 s"}, {3, "3.00 ns"}} {
		if got := duration(tc.ns); got != tc.want {
			t.Errorf("duration(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}
