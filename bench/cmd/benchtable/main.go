// Command benchtable reads the output of the bench module's benchmarks
// (go test -bench) on standard input and prints Markdown tables: for
// BenchmarkDecide, each engine's time per decision and its ratio to
// toolgate's, per shape, policy size and call; toolgate's own growth from
// the smallest policy to the largest; and for BenchmarkCompile, each
// engine's compile time and live heap per rule. With -count above 1, each
// figure is the median of its runs.
//
// Usage:
//
//	go test -run '^$' -bench . | go run ./cmd/benchtable [-min]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// useMin makes every figure the fastest run instead of the median: on a
// machine shared with other work, noise only ever adds time.
var useMin = flag.Bool("min", false, "show the fastest run of each benchmark instead of the median")

func main() {
	flag.Parse()
	res, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(res) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark results on standard input")
		os.Exit(1)
	}
	render(os.Stdout, res)
}

// result is one benchmark's figures, each the list of its runs' values.
type result struct {
	name   string            // without the Benchmark prefix and -GOMAXPROCS suffix
	fields map[string]string // shape, rules, call, engine from name=value parts
	values map[string][]float64
}

func (r *result) median(unit string) (float64, bool) {
	v := slices.Clone(r.values[unit])
	if len(v) == 0 {
		return 0, false
	}
	sort.Float64s(v)
	if *useMin {
		return v[0], true
	}
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// parse reads benchmark lines ("BenchmarkX/a=b-2  N  v unit  v unit …");
// repeated names (from -count) gather their values.
func parse(r io.Reader) (map[string]*result, error) {
	res := map[string]*result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // not a result line (a log line starting with a name)
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		name = foldRounds(name)
		r := res[name]
		if r == nil {
			r = &result{name: name, fields: map[string]string{}, values: map[string][]float64{}}
			for _, part := range strings.Split(name, "/") {
				if k, v, ok := strings.Cut(part, "="); ok {
					r.fields[k] = v
				}
			}
			res[name] = r
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %v", f[0], f[i], err)
			}
			r.values[f[i+1]] = append(r.values[f[i+1]], v)
		}
	}
	return res, sc.Err()
}

// foldRounds drops a round=N element from a name, so that the rounds of
// one benchmark gather like -count's runs.
func foldRounds(name string) string {
	parts := strings.Split(name, "/")
	kept := parts[:0]
	for _, p := range parts {
		if !strings.HasPrefix(p, "round=") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

// engines are the columns, in order, with their titles.
var engines = []struct{ key, title string }{
	{"toolgate", "toolgate"},
	{"cedar", "cedar-go"},
	{"opa", "OPA"},
	{"floor", "floor"},
}

// row is one shape, size and call (or shape and size for compile results).
type row struct {
	shape string
	rules int
	call  string
}

func rowsOf(res map[string]*result, bench string) []row {
	seen := map[row]bool{}
	var rows []row
	order := map[string]int{}
	for _, r := range res {
		if !strings.HasPrefix(r.name, bench+"/") {
			continue
		}
		n, _ := strconv.Atoi(r.fields["rules"])
		k := row{r.fields["shape"], n, r.fields["call"]}
		if !seen[k] {
			seen[k] = true
			rows = append(rows, k)
		}
	}
	for i, c := range []string{"BashSimple", "BashCompound", "Read", "Edit", "MCP"} {
		order[c] = i
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.shape != b.shape {
			return a.shape > b.shape // mixed before adversarial
		}
		if a.rules != b.rules {
			return a.rules < b.rules
		}
		oa, oka := order[a.call]
		ob, okb := order[b.call]
		if oka && okb && oa != ob {
			return oa < ob
		}
		return a.call < b.call
	})
	return rows
}

func lookup(res map[string]*result, bench string, k row, engine string) *result {
	name := fmt.Sprintf("%s/shape=%s/rules=%d", bench, k.shape, k.rules)
	if k.call != "" {
		name += "/call=" + k.call
	}
	return res[name+"/engine="+engine]
}

func render(w io.Writer, res map[string]*result) {
	if rows := rowsOf(res, "Decide"); len(rows) > 0 {
		renderDecide(w, res, rows)
	}
	if rows := rowsOf(res, "Compile"); len(rows) > 0 {
		renderCompile(w, res, rows)
	}
}

func renderDecide(w io.Writer, res map[string]*result, rows []row) {
	fmt.Fprintf(w, "Time per decision from the hook payload's bytes (%s); in parentheses the engine's time divided by toolgate's (above 1: toolgate is faster).\n", stat())
	fmt.Fprintln(w)
	fmt.Fprint(w, "| shape | rules | call |")
	for _, e := range engines {
		fmt.Fprintf(w, " %s |", e.title)
	}
	fmt.Fprintln(w, " toolgate allocs, B |")
	fmt.Fprint(w, "|---|--:|---|")
	for range engines {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w, "--:|")
	for _, k := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |", k.shape, count(k.rules), k.call)
		base, haveBase := 0.0, false
		if r := lookup(res, "Decide", k, "toolgate"); r != nil {
			base, haveBase = r.median("ns/op")
		}
		for _, e := range engines {
			r := lookup(res, "Decide", k, e.key)
			ns, ok := 0.0, false
			if r != nil {
				ns, ok = r.median("ns/op")
			}
			switch {
			case !ok:
				fmt.Fprint(w, " – |")
			case e.key == "toolgate" || !haveBase || base == 0:
				fmt.Fprintf(w, " %s |", duration(ns))
			default:
				fmt.Fprintf(w, " %s (%s) |", duration(ns), ratio(ns/base))
			}
		}
		allocs, bytes := "–", "–"
		if r := lookup(res, "Decide", k, "toolgate"); r != nil {
			if v, ok := r.median("allocs/op"); ok {
				allocs = strconv.FormatFloat(v, 'f', 0, 64)
			}
			if v, ok := r.median("B/op"); ok {
				bytes = strconv.FormatFloat(v, 'f', 0, 64)
			}
		}
		fmt.Fprintf(w, " %s, %s |\n", allocs, bytes)
	}
	renderGrowth(w, res, rows)
}

// renderGrowth prints toolgate's time at each size divided by its time at
// the smallest size, per shape and call: how far from flat it is.
func renderGrowth(w io.Writer, res map[string]*result, rows []row) {
	type key struct{ shape, call string }
	sizes := map[key][]int{}
	var keys []key
	for _, k := range rows {
		kk := key{k.shape, k.call}
		if _, ok := sizes[kk]; !ok {
			keys = append(keys, kk)
		}
		sizes[kk] = append(sizes[kk], k.rules)
	}
	var all []int
	for _, s := range sizes {
		for _, n := range s {
			if !slices.Contains(all, n) {
				all = append(all, n)
			}
		}
	}
	sort.Ints(all)
	if len(all) < 2 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "toolgate's time per decision divided by its time at %s rules (flat is 1.0).\n\n", count(all[0]))
	fmt.Fprint(w, "| shape | call |")
	for _, n := range all[1:] {
		fmt.Fprintf(w, " %s |", count(n))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---|")
	for range all[1:] {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w)
	for _, kk := range keys {
		first := lookup(res, "Decide", row{kk.shape, all[0], kk.call}, "toolgate")
		if first == nil {
			continue
		}
		base, ok := first.median("ns/op")
		if !ok || base == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s |", kk.shape, kk.call)
		for _, n := range all[1:] {
			r := lookup(res, "Decide", row{kk.shape, n, kk.call}, "toolgate")
			if r == nil {
				fmt.Fprint(w, " – |")
				continue
			}
			v, _ := r.median("ns/op")
			fmt.Fprintf(w, " %s |", ratio(v/base))
		}
		fmt.Fprintln(w)
	}
}

func renderCompile(w io.Writer, res map[string]*result, rows []row) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Compile time (%s) and live heap per rule after GC.\n", stat())
	fmt.Fprintln(w)
	fmt.Fprint(w, "| shape | rules |")
	for _, e := range engines {
		fmt.Fprintf(w, " %s |", e.title)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|--:|")
	for range engines {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w)
	for _, k := range rows {
		fmt.Fprintf(w, "| %s | %s |", k.shape, count(k.rules))
		for _, e := range engines {
			r := lookup(res, "Compile", k, e.key)
			if r == nil {
				fmt.Fprint(w, " – |")
				continue
			}
			ns, _ := r.median("ns/op")
			heap, ok := r.median("heapB/rule")
			if ok {
				fmt.Fprintf(w, " %s, %s B/rule |", duration(ns), strconv.FormatFloat(heap, 'f', 0, 64))
			} else {
				fmt.Fprintf(w, " %s |", duration(ns))
			}
		}
		fmt.Fprintln(w)
	}
}

func stat() string {
	if *useMin {
		return "fastest run"
	}
	return "median"
}

// duration formats nanoseconds in the largest unit that keeps the value at
// least 1, with about three significant digits.
func duration(ns float64) string {
	units := []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if ns >= u.scale || u.scale == 1 {
			return digits3(ns/u.scale) + " " + u.name
		}
	}
	return ""
}

func digits3(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func ratio(x float64) string {
	return digits3(x) + "×"
}

// count writes a rule count with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
