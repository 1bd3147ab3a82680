package serve

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestWriteDecisionBytes: writeDecision's pooled encoder writes exactly
// json.Marshal's bytes and a newline, HTML-escaping included, for the load
// test's decisions and an ask whose message needs escaping.
func TestWriteDecisionBytes(t *testing.T) {
	e := newEnv(t, nil)
	id := Identity{Name: "ci-agent", Role: RoleAgent}
	var rs []response
	for _, body := range loadBodies {
		c, rerr := parseCall(body, e.srv.defaults())
		if rerr != nil {
			t.Fatal(rerr.Msg)
		}
		rs = append(rs, e.srv.decideCall(context.Background(), id, c))
	}
	rs = append(rs, newResponse(denial(kindInvalid, "<script>&\u2028 \xff"), "rev", &approvalRef{ID: "ap_1", State: "pending"}))
	for i, r := range rs {
		w := httptest.NewRecorder()
		writeDecision(w, http.StatusOK, r)
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Body.String(); got != string(want)+"\n" {
			t.Fatalf("response %d:\n got %q\nwant %q", i, got, want)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q", ct)
		}
	}
}
