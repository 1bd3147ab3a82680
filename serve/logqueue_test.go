package serve

import (
	"strconv"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/store"
)

// TestLogQueue: entries come out in the order they went in, across takes
// and from many goroutines; a full queue takes no more; after close, put
// refuses and take hands over the rest.
func TestLogQueue(t *testing.T) {
	q := newLogQueue()
	for i := range 3 {
		if !q.put(store.Entry{Message: strconv.Itoa(i)}) {
			t.Fatal("put refused on an open queue")
		}
	}
	select {
	case <-q.wake:
	default:
		t.Fatal("the writer was not woken")
	}
	got, closed := q.take(nil)
	if closed || len(got) != 3 || got[0].Message != "0" || got[2].Message != "2" {
		t.Fatalf("take = %d entries %+v, closed %v", len(got), got, closed)
	}

	// Many writers: every entry arrives once, each writer's in order.
	var wg sync.WaitGroup
	const writers, each = 8, 500
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				q.put(store.Entry{Caller: strconv.Itoa(w), Micros: int64(i)})
			}
		})
	}
	var all []store.Entry
	var spare []store.Entry
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		case <-q.wake:
		}
		batch, _ := q.take(spare)
		all = append(all, batch...)
		spare = batch
	}
	next := map[string]int64{}
	for _, e := range all {
		if e.Micros != next[e.Caller] {
			t.Fatalf("writer %s: entry %d after %d", e.Caller, e.Micros, next[e.Caller]-1)
		}
		next[e.Caller]++
	}
	if len(all) != writers*each {
		t.Fatalf("%d entries, want %d", len(all), writers*each)
	}

	// A full queue: one more put waits, and is refused at close.
	for range logQueueMax {
		q.put(store.Entry{})
	}
	refused := make(chan bool)
	go func() { refused <- !q.put(store.Entry{Message: "late"}) }()
	q.close()
	if !<-refused {
		t.Fatal("a put waiting on a full queue was taken after close")
	}
	rest, closed := q.take(nil)
	if !closed || len(rest) != logQueueMax {
		t.Fatalf("after close: %d entries, closed %v; want %d, true", len(rest), closed, logQueueMax)
	}
	if q.put(store.Entry{}) {
		t.Fatal("put accepted after close")
	}
}
