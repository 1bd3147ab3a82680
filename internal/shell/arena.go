package shell

import (
	"unsafe"

	"mvdan.cc/sh/v3/syntax"
)

// arena hands out the commands, path references and word lists of one
// analysis from a few shared backing arrays, so that a typical command
// string costs a handful of heap allocations instead of one for every
// command, path and word list. Everything it hands out belongs to the
// Analysis that holds it: within one analysis chunks are never reused, so
// a slice handed out stays valid until the Analysis is reset for the next
// one ([AnalyzeInto]), which rewinds the arena to the start of its newest
// chunks.
//
// Every slice comes with a capacity that no other slice shares (a full
// slice expression), so appending to it never writes into a neighbour.
type arena struct {
	cmds  []Command
	ptrs  []*Command
	refs  []PathRef
	words []Word
	forms [][]Word
	// text holds the bytes of joined paths (joinPath). Unlike the other
	// chunks it is never rewound: a string handed out keeps its bytes for
	// good, so the next analysis writes after them, and a full chunk is
	// replaced by a new one.
	text []byte

	// The first chunks are part of the Analysis itself: a simple command
	// needs no allocation beyond it.
	cmd0  [1]Command
	ptr0  [1]*Command
	ref0  [2]PathRef
	word0 [4]Word
	form0 [1][]Word
}

// init points the arena at its inline chunks.
func (a *arena) init() {
	a.cmds, a.ptrs, a.refs, a.words, a.forms = a.cmd0[:0], a.ptr0[:0], a.ref0[:0], a.word0[:0], a.form0[:0]
}

// maxKept bounds the chunk an arena keeps across a reset: the memory of an
// unusually large command string is let go.
const maxKept = 256

// reset empties the arena for the next analysis: it keeps its newest chunk
// of each kind (the largest, up to maxKept elements), cleared, and drops the
// older ones.
func (a *arena) reset() {
	if a.cmds == nil {
		a.init()
		return
	}
	clear(a.cmd0[:])
	clear(a.ptr0[:])
	clear(a.ref0[:])
	clear(a.word0[:])
	clear(a.form0[:])
	a.cmds = rewind(a.cmds, a.cmd0[:0])
	a.ptrs = rewind(a.ptrs, a.ptr0[:0])
	a.refs = rewind(a.refs, a.ref0[:0])
	a.words = rewind(a.words, a.word0[:0])
	a.forms = rewind(a.forms, a.form0[:0])
}

// rewind returns chunk emptied and cleared, or inline when chunk is too
// large to keep. Only chunk[:len] was handed out since the last rewind (the
// rest is still zero), so only that is cleared.
func rewind[T any](chunk, inline []T) []T {
	if cap(chunk) > maxKept {
		return inline
	}
	clear(chunk)
	return chunk[:0]
}

// take returns a slice of length n and capacity c (c >= n) carved from
// *pool, starting a new chunk of at least min elements when the current
// one is too short.
func take[T any](pool *[]T, n, c, min int) []T {
	if cap(*pool)-len(*pool) < c {
		*pool = make([]T, 0, max(c, min, 2*cap(*pool)))
	}
	i := len(*pool)
	*pool = (*pool)[:i+c]
	return (*pool)[i : i+n : i+c]
}

// textChunk is the size of a chunk of joined-path bytes; a path longer
// than maxJoined is joined on its own.
const (
	textChunk = 1024
	maxJoined = 128
)

// joinPath returns dir + "/" + p ("/" + p when dir is "/"), its bytes
// carved from the arena's text chunk: most paths of an analysis share one
// allocation, and across reused analyses most share none.
func (a *arena) joinPath(dir, p string) string {
	if dir == "/" {
		dir = ""
	}
	n := len(dir) + 1 + len(p)
	if n > maxJoined {
		return dir + "/" + p
	}
	if cap(a.text)-len(a.text) < n {
		a.text = make([]byte, 0, textChunk)
	}
	i := len(a.text)
	a.text = append(a.text, dir...)
	a.text = append(a.text, '/')
	a.text = append(a.text, p...)
	// a.text[i:i+n] is never written again (text only grows).
	return unsafe.String(&a.text[i], n)
}

// command returns a new zero Command.
func (a *arena) command() *Command {
	return &take(&a.cmds, 1, 1, 2)[0]
}

// addCommand appends c to list, growing it inside the arena.
func (a *arena) addCommand(list []*Command, c *Command) []*Command {
	if len(list) == cap(list) {
		grown := take(&a.ptrs, len(list), 2*len(list)+1, 4)
		copy(grown, list)
		list = grown
	}
	return append(list, c)
}

// ref returns a one-element list holding r.
func (a *arena) ref(r PathRef) []PathRef {
	s := take(&a.refs, 1, 1, 4)
	s[0] = r
	return s
}

// appendRef appends r to list unless list already holds it, growing the
// list inside the arena.
func (a *arena) appendRef(list []PathRef, r PathRef) []PathRef {
	if len(list) > 64 {
		// Keep huge commands linear; duplicates are harmless.
		return append(list, r)
	}
	for _, x := range list {
		if x == r {
			return list
		}
	}
	if len(list) == cap(list) {
		grown := take(&a.refs, len(list), 2*len(list)+1, 4)
		copy(grown, list)
		list = grown
	}
	return append(list, r)
}

// values returns the words of ws.
func (a *arena) values(ws []wordInfo) []Word {
	out := take(&a.words, len(ws), len(ws), 8)
	for i, w := range ws {
		out[i] = w.Word
	}
	return out
}

// forms returns an empty list of forms with room for n.
func (a *arena) formList(n int) [][]Word {
	return take(&a.forms, n, n, 2)
}

// scratch is the analyzer's working memory that nothing in an Analysis
// points to: word lists being classified, directory states and
// inspectors. It is carved like an arena during one analysis and cleared
// (so that it holds no pointers into the last command) when the analyzer
// goes back to its pool.
type scratch struct {
	words []wordInfo
	dirs  []dirState
	ins   []inspector
	// plainToks are the tokens of the string plainParse reads; the nodes
	// below are those of the trees it builds, valid until the analysis
	// ends (nothing in an Analysis points to a node).
	plainToks   []plainTok
	plainWords  []plainWord
	wordParts   []syntax.WordPart
	plainLits   []syntax.Lit
	plainSqs    []syntax.SglQuoted
	plainDqs    []plainDbl
	plainCmds   []plainCmd
	plainBins   []plainBin
	wordPtrs    []*syntax.Word
	stmtPtrs    []*syntax.Stmt
	plainRedirs []syntax.Redirect
	redirPtrs   []*syntax.Redirect
}

// plainWord is a word with room for one part, as the parser builds it.
type plainWord struct {
	w    syntax.Word
	part [1]syntax.WordPart
}

// plainDbl is a double-quoted string with room for its literal.
type plainDbl struct {
	dq   syntax.DblQuoted
	part [1]syntax.WordPart
}

// plainCmd is a simple command with its statement.
type plainCmd struct {
	st syntax.Stmt
	ce syntax.CallExpr
}

// plainBin is a pipe, && or || with its statement.
type plainBin struct {
	st syntax.Stmt
	b  syntax.BinaryCmd
}

func (s *scratch) dirState(dir string) *dirState {
	d := &take(&s.dirs, 1, 1, 8)[0]
	d.dir = dir
	return d
}

func (s *scratch) inspector() *inspector {
	return &take(&s.ins, 1, 1, 4)[0]
}

// reset clears what the last analysis used and keeps the newest chunks.
func (s *scratch) reset() {
	clear(s.words)
	s.words = s.words[:0]
	clear(s.dirs)
	s.dirs = s.dirs[:0]
	clear(s.ins)
	s.ins = s.ins[:0]
	s.plainWords = rewind(s.plainWords, nil)
	s.wordParts = rewind(s.wordParts, nil)
	s.plainLits = rewind(s.plainLits, nil)
	s.plainSqs = rewind(s.plainSqs, nil)
	s.plainDqs = rewind(s.plainDqs, nil)
	s.plainCmds = rewind(s.plainCmds, nil)
	s.plainBins = rewind(s.plainBins, nil)
	s.wordPtrs = rewind(s.wordPtrs, nil)
	s.stmtPtrs = rewind(s.stmtPtrs, nil)
	s.plainRedirs = rewind(s.plainRedirs, nil)
	s.redirPtrs = rewind(s.redirPtrs, nil)
}
