// Package loadgen is a bounded, self-stopping HTTP load generator for the
// decision service: a fixed number of workers, each on its own keep-alive
// connection, send requests for a fixed time and record every latency.
package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Config is one load run.
type Config struct {
	URL      string        // the endpoint, e.g. http://127.0.0.1:8421/v1/decide
	Token    string        // bearer token
	Bodies   [][]byte      // request bodies, sent in turn
	Workers  int           // concurrent connections (default 8)
	Duration time.Duration // how long to send (default 5s; at most 5m)
	// Check, if set, judges each answer; a false counts as an error.
	Check func(status int, body []byte) bool
}

// Result summarises a run.
type Result struct {
	Requests  int
	Errors    int
	Elapsed   time.Duration
	PerSecond float64
	P50, P99  time.Duration
	Max       time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("%d requests in %v: %.0f/s, p50 %v, p99 %v, max %v, %d errors",
		r.Requests, r.Elapsed.Round(time.Millisecond), r.PerSecond, r.P50, r.P99, r.Max, r.Errors)
}

// Run sends load until the duration has passed or ctx is done.
func Run(ctx context.Context, c Config) (Result, error) {
	if len(c.Bodies) == 0 {
		return Result{}, fmt.Errorf("loadgen: no request bodies")
	}
	if c.Workers <= 0 {
		c.Workers = 8
	}
	if c.Duration <= 0 {
		c.Duration = 5 * time.Second
	}
	c.Duration = min(c.Duration, 5*time.Minute)
	tr := &http.Transport{MaxIdleConns: c.Workers, MaxIdleConnsPerHost: c.Workers, MaxConnsPerHost: c.Workers,
		IdleConnTimeout: time.Minute, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	lat := make([][]time.Duration, c.Workers)
	errs := make([]int, c.Workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range c.Workers {
		wg.Go(func() {
			buf := make([]byte, 0, 4096)
			ls := make([]time.Duration, 0, 1<<16)
			for i := w; ctx.Err() == nil; i += c.Workers {
				body := c.Bodies[i%len(c.Bodies)]
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
				if err != nil {
					errs[w]++
					break
				}
				req.Header.Set("Authorization", "Bearer "+c.Token)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs[w]++
					}
					continue
				}
				buf = buf[:0]
				b := bytes.NewBuffer(buf)
				_, err = io.Copy(b, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if err != nil || (c.Check != nil && !c.Check(resp.StatusCode, b.Bytes())) {
					errs[w]++
				}
				ls = append(ls, d)
			}
			lat[w] = ls
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	r := Result{Elapsed: elapsed}
	for w := range c.Workers {
		all = append(all, lat[w]...)
		r.Errors += errs[w]
	}
	r.Requests = len(all)
	if r.Requests == 0 {
		return r, fmt.Errorf("loadgen: no request completed")
	}
	slices.Sort(all)
	r.PerSecond = float64(r.Requests) / elapsed.Seconds()
	r.P50 = all[len(all)/2]
	r.P99 = all[len(all)*99/100]
	r.Max = all[len(all)-1]
	return r, nil
}
