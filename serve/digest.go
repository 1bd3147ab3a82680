package serve

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// digestMemo remembers the digests of recent calls, since computing one
// (decoding the input, encoding it canonically, hashing it) costs an ask
// more than the rest of its decision, and an ask comes back as the same
// call while it waits for its answer. A digest is a function of the
// call's tool, input and working directory alone; the memo answers only
// for exactly those three, copied when it was made, so it can return
// nothing but what callDigest would. It is a fixed table: a new call takes
// the place of whichever call hashed to its slot, and calls too large for
// it are not remembered, so that its memory stays bounded. Safe for
// concurrent use.
type digestMemo struct {
	seed  maphash.Seed
	slots [digestSlots]atomic.Pointer[memoized]
}

// memoized is one remembered digest and the call it is of.
type memoized struct {
	tool, input, cwd, digest string
}

const (
	// digestSlots is the memo's size.
	digestSlots = 512
	// maxMemoized bounds the tool, input and working directory of a call
	// the memo keeps, together, in bytes.
	maxMemoized = 1 << 10
)

func newDigestMemo() *digestMemo { return &digestMemo{seed: maphash.MakeSeed()} }

// digest is callDigest(c), remembered.
func (m *digestMemo) digest(c Call) (string, error) {
	if len(c.Tool)+len(c.Input)+len(c.Cwd) > maxMemoized {
		return callDigest(c)
	}
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(c.Tool)
	h.WriteByte(0)
	h.Write(c.Input)
	h.WriteByte(0)
	h.WriteString(c.Cwd)
	slot := &m.slots[h.Sum64()%digestSlots]
	if e := slot.Load(); e != nil && e.tool == c.Tool && e.input == string(c.Input) && e.cwd == c.Cwd {
		return e.digest, nil
	}
	d, err := callDigest(c)
	if err == nil {
		// Copies: the call's strings may point into a request body.
		slot.Store(&memoized{tool: strings.Clone(c.Tool), input: string(c.Input), cwd: strings.Clone(c.Cwd), digest: d})
	}
	return d, err
}
