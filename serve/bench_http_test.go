package serve

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkDecideHTTP is one POST /v1/decide through the service's
// handler — bearer token, body, decision, metrics, response and the
// SQLite decision log — over the request mix of the load test
// (loadBodies), without the network.
func BenchmarkDecideHTTP(b *testing.B) {
	e := newEnv(b, nil, func(o *Options) { o.Now = time.Now })
	h := e.srv.Handler()
	reqs := make([]*http.Request, len(loadBodies))
	for i := range loadBodies {
		r := httptest.NewRequest("POST", "/v1/decide", nil)
		r.Header.Set("Authorization", "Bearer "+e.agent)
		r.Header.Set("Content-Type", "application/json")
		reqs[i] = r
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		body := loadBodies[i%len(loadBodies)]
		r := reqs[i%len(reqs)].Clone(context.Background())
		r.Body = nopCloser{bytes.NewReader(body)}
		r.ContentLength = int64(len(body))
		clear(w.h)
		w.code = 0
		h.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
		i++
	}
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// discardWriter is a ResponseWriter that keeps only the status.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = 200
	}
	return len(p), nil
}
