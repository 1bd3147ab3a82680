package toolgate

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/pathmatch"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/urlmatch"
	"github.com/toolgate/toolgate/internal/wordindex"
)

// Readers (SPEC §6.3: "one call, or one part of a compound command").
//
// Each kind of tool has a reader that turns a call into the parts it is
// judged on — the simple commands of a shell string, the paths of a read or
// edit, the URL of a fetch, the input of everything else — and the floors
// and fallbacks those parts face. decideCore (decide.go) then runs the order
// of evaluation once over the parts, whatever their kind: a fix to a step
// is made in one place.

// partKind says what a part is.
type partKind uint8

const (
	partInput   partKind = iota // the input as a whole: web searches, agents, MCP and generic tools
	partURL                     // a fetch call's URL
	partPath                    // one path of a read, list, search or edit call
	partCommand                 // one simple command of a shell call
)

// A part is one thing a call is judged on.
type part struct {
	kind partKind
	text string // names the part in reasons: the URL as written, the path, the command; "" for the input

	item int            // partPath: the path's index in reading.items
	cmd  *shell.Command // partCommand
	cp   *cmdPaths      // partCommand: the paths cmd names

	// denyOnly marks a part judged by deny rules alone: a wrapper command
	// (xargs, env, timeout…) whose inner commands are parts of their own.
	denyOnly bool
	// delegated marks a part judged by deny and ask rules alone: a
	// command that another program runs for the caller (ssh HOST CMD,
	// docker exec C CMD), whose program's own part decides allow.
	delegated bool

	// secret and secretText (paths of a read-kind call): the path, or its
	// symlink target secretText, is a secret file (SPEC §7).
	secret     bool
	secretText string
}

// reading is a call read into parts, with what the steps after the rules
// need to know of the call as a whole.
//
// Parts refer to their path by index. Nothing read from a reading's own
// fields may be kept beyond the call (a string in a reason, an error): its
// paths live in the call context, which must stay on the stack.
type reading struct {
	parts    []part
	items    []pathItem // the paths of a read, list, search or edit call (in callCtx.itemBuf)
	readOnly bool       // the call may count as read-only (plan mode, step 4)

	// wholeReadOnly is for a call with no part left to judge by ask and
	// allow rules (a shell string holding no command, callCtx.anText).
	wholeReadOnly bool

	an       *shell.Analysis // shell calls
	canAllow bool            // shell: no part of the string is unanalysable or assigns unsafely
}

// cmdPaths are the paths one simple command names, by role.
type cmdPaths struct {
	args, reads, writes, redirects, searches []pathItem
	first                                    []wordindex.Key // the index keys of every form; nil: some command name is dynamic
}

// read reads the call with its kind's reader; buf is backing for its
// parts.
func (cc *callCtx) read(buf []part) (reading, *Decision) {
	switch cc.info.Kind {
	case KindShell:
		return cc.readShell()
	case KindRead, KindList, KindSearch, KindEdit:
		return cc.readPathCall(buf)
	case KindFetch:
		return cc.readFetch(buf)
	}
	return cc.readInput(buf), nil
}

// offer offers every rule of effect e that matches part p to b, which keeps
// the first by priority.
func (cc *callCtx) offer(e Effect, rd *reading, p *part, b *best) {
	switch p.kind {
	case partCommand:
		if e == EffectAllow {
			cc.offerCommandAllow(rd, p, b)
		} else {
			cc.offerCommand(e, p, b)
		}
	case partPath:
		cc.offerPath(e, &rd.items[p.item], p, b)
	default:
		var s subject
		if p.kind == partURL {
			s.url = &cc.url
		}
		cc.eachRule(e, nil, false, func(r *crule) {
			if !b.beats(r) && r.matches(cc, s) {
				b.offer(r, p.text)
			}
		})
	}
}

// floors returns the safety floors of step 3: reasons that keep the call
// at ask at best.
func (cc *callCtx) floors(rd *reading) []Reason {
	switch cc.info.Kind {
	case KindShell:
		return cc.shellFloors(rd)
	case KindRead, KindList, KindSearch, KindEdit:
		return cc.pathFloors(rd)
	}
	return nil
}

// partFallback is step 6 for a part no rule decided.
func (cc *callCtx) partFallback(rd *reading, p *part) verdict {
	switch p.kind {
	case partCommand:
		return cc.commandFallback(rd, p)
	case partPath:
		return cc.pathFallback(&rd.items[p.item], p)
	case partURL:
		return cc.urlFallback(&cc.url, p)
	}
	ro := cc.info.ReadOnly && cc.mayBeReadOnly()
	covered := ro && cc.info.Kind != KindWebSearch && cc.info.Kind != KindFetch
	v := cc.fallback("", covered, false, false, nil)
	if v.outcome == Ask {
		v.suggest = []string{cc.tool} // only an ask's suggestions reach the decision
	}
	return v
}

// ---- everything else: web searches, agents, MCP and generic tools ----

// readInput reads a call judged on its input as a whole: one part.
func (cc *callCtx) readInput(buf []part) reading {
	return reading{parts: append(buf, part{kind: partInput}), readOnly: cc.info.ReadOnly && cc.mayBeReadOnly()}
}

// ---- fetch calls ----

// readFetch reads a fetch call's URL: one part.
func (cc *callCtx) readFetch(buf []part) (reading, *Decision) {
	v := cc.input.Lookup(cc.info.Field)
	if cc.info.Field == "" {
		v = cc.input.Get("url")
	}
	raw, ok := v.Str()
	if !ok {
		d := invalidf("fetch call needs a string %q", "url")
		return reading{}, &d
	}
	if v.HasControl() {
		d := invalidf("url holds a control character")
		return reading{}, &d
	}
	if cc.sc != nil {
		cc.url.t, cc.url.err = urlmatch.ParseLazyInto(raw, &cc.sc.urls)
	} else {
		cc.url.t, cc.url.err = urlmatch.ParseLazy(raw)
	}
	return reading{parts: append(buf, part{kind: partURL, text: raw}), readOnly: cc.mayBeReadOnly()}, nil
}

// urlFallback is step 6 for a URL: a fetch touches no workspace, and a URL
// that cannot be read fully can only be asked about.
func (cc *callCtx) urlFallback(u *urlTarget, p *part) verdict {
	fv := cc.fallback(p.text, false, false, false, nil)
	if fv.outcome == Ask && u.err == nil && len(u.t.Hosts) > 0 {
		// Only an ask's suggestions reach the decision (combine).
		fv.suggest = []string{"WebFetch(domain:" + u.t.Hosts[0] + ")"}
	}
	if u.err != nil && fv.outcome == Allow {
		fv = verdict{outcome: Ask, reasons: []Reason{{Kind: KindDefault, Part: p.text, Message: "URL cannot be read fully (" + u.err.Error() + "): it can only be asked about"}}}
	}
	if u.err != nil {
		fv.reasons = append(fv.reasons, Reason{Kind: KindInvalid, Part: p.text, Message: u.err.Error()})
	}
	return fv
}

// ---- read, list, search and edit calls ----

// readPathCall reads the paths of a read, list, search or edit call: a part
// each.
func (cc *callCtx) readPathCall(buf []part) (reading, *Decision) {
	items, inv := cc.readPaths()
	if inv != nil {
		return reading{}, inv
	}
	for i := range items {
		buf = append(buf, part{kind: partPath, text: items[i].display(), item: i})
	}
	return reading{parts: buf, items: items, readOnly: cc.info.Kind != KindEdit && cc.mayBeReadOnly()}, nil
}

// offerPath offers the rules that match a path. A Read deny or ask rule
// also covers edits; an allow rule approves a secret read only when its
// path pattern names the file.
func (cc *callCtx) offerPath(e Effect, it *pathItem, p *part, b *best) {
	s := subject{path: it}
	if e == EffectAllow {
		// The secret check concerns reads of content: not edits, not
		// listings (names only).
		if cc.info.Kind != KindEdit && cc.info.Kind != KindList {
			p.secretText, p.secret = cc.secretPart(it)
		}
		cc.eachRuleFor(EffectAllow, nil, false, it, func(r *crule) {
			if !b.beats(r) && r.matches(cc, s) && (!p.secret || namesSecret(r)) {
				b.offer(r, p.text)
			}
		})
		return
	}
	f := func(r *crule) {
		if b.beats(r) {
			return
		}
		if at, ok := r.matchAt(cc, s); ok {
			b.offer(r, at)
		}
	}
	cc.eachRuleFor(e, nil, false, it, f)
	if cc.info.Kind == KindEdit {
		cc.kindRules(e, KindRead, it, f)
	}
}

// pathFloors: an edit of a protected path, and a content search of a
// directory where a read deny rule could match.
func (cc *callCtx) pathFloors(rd *reading) []Reason {
	var floors []Reason
	k := cc.info.Kind
	for i := range rd.parts {
		it := &rd.items[rd.parts[i].item]
		if m := procFloor(it, true); m != "" && cc.c.enabled {
			floors = append(floors, Reason{Kind: KindSafety, Part: it.display(), Message: m})
		}
		if k == KindEdit {
			if e, part, ok := cc.protectedPart(it); ok {
				floors = append(floors, Reason{Kind: KindSafety, Part: part, Message: "writes a protected path (" + e + ")"})
			}
		}
		if k == KindSearch && !cc.info.ExcludesDenied && cc.c.enabled && !cc.knownFile(it) {
			// Only a directory holds files below it; a searched file is a
			// plain content read (read deny rules and the secret check).
			if r, part := cc.searchHitsDenied(it); r != nil {
				floors = append(floors, Reason{Kind: KindSafety, Part: part, Message: fmt.Sprintf("content search of a directory where read deny rule %q could match", r.text)})
			}
		}
	}
	return floors
}

// procFloor says why a path through /proc or /dev/fd cannot be judged, or
// "": one under another process's directories (or under this one's
// working directory when that is not known), and for a read or edit call
// an open descriptor, since the file open there is the agent's. A shell's
// descriptors are its own redirections, read where they open the file.
func procFloor(it *pathItem, call bool) string {
	switch {
	case it.proc == pathmatch.ProcUnknown:
		return "names a file through the directories of a process in /proc, which cannot be told: " + it.text
	case it.proc == pathmatch.ProcDescriptor && call:
		return "names an open file descriptor, whose file cannot be told: " + it.text
	}
	return ""
}

// pathFallback is step 6 for a path: a read inside the workspace gets
// default_read_only, an edit inside it acceptEdits' allow.
func (cc *callCtx) pathFallback(it *pathItem, p *part) verdict {
	edit := cc.info.Kind == KindEdit
	inside := cc.inWorkspace(it)
	text := p.text
	if p.secret {
		text = p.secretText
	}
	v := cc.fallback(text, !edit && cc.mayBeReadOnly() && inside, p.secret, edit && inside && !cc.folded, nil)
	if v.outcome == Ask {
		// Only an ask's suggestions reach the decision (combine).
		v.suggest = []string{suggestPath(cc.info.Kind, it)}
	}
	return v
}

// ---- shell calls ----

// readShell reads a shell call's command string: a part for every simple
// command, with the paths it names.
func (cc *callCtx) readShell() (reading, *Decision) {
	cmdText, inv := cc.shellCommand()
	if inv != nil {
		return reading{}, inv
	}
	an := analyze(cc, cmdText)
	sc := &shellLists{} // a context of its own keeps nothing
	if cc.sc != nil {
		sc = &cc.sc.lists
	}
	cps := grow(&sc.cps, len(an.Commands))[:len(an.Commands)]
	clear(cps) // cmdPaths are filled field by field below
	total, nforms, nonWrapper := 0, 0, 0
	for _, cmd := range an.Commands {
		total += len(cmd.ArgPaths) + len(cmd.Reads) + len(cmd.Writes) + len(cmd.Redirects) + len(cmd.Searches)
		nforms += len(cmd.Forms)
		if !cmd.Wrapper {
			nonWrapper++
		}
	}
	names := grow(&sc.names, nforms)  // backing for every command's index keys
	backing := grow(&sc.items, total) // one block for every path of the call
	parts := grow(&sc.parts, len(an.Commands))
	for i, cmd := range an.Commands {
		cp := &cps[i]
		conv := func(refs []shell.PathRef) []pathItem {
			if len(refs) == 0 {
				return nil
			}
			start := len(backing)
			for _, r := range refs {
				backing = append(backing, cc.shellPathItem(cmd, r))
			}
			return backing[start:len(backing):len(backing)]
		}
		cp.args, cp.reads, cp.writes = conv(cmd.ArgPaths), conv(cmd.Reads), conv(cmd.Writes)
		cp.redirects, cp.searches = conv(cmd.Redirects), conv(cmd.Searches)
		if len(cp.searches) > 0 {
			// A recursive search of a file reads that file: it faces the
			// secret check as a read. Only a directory can hold denied
			// files below it; a path of unknown kind is both.
			var dirs []pathItem
			for j := range cp.searches {
				it := cp.searches[j]
				switch cc.pathKind(&it) {
				case pathFile:
					cp.reads = append(cp.reads, it)
				case pathDir:
					dirs = append(dirs, it)
				default:
					cp.reads = append(cp.reads, it)
					dirs = append(dirs, it)
				}
			}
			cp.searches = dirs
		}
		cp.first, names = firstWords(cmd, names)
		if cmd.StdinStatic && len(cmd.Words) > 0 && cmd.Words[0].Static && cmd.Words[0].Value == "apply_patch" {
			ps, err := pathmatch.PatchPaths(cmd.Stdin)
			if err != nil {
				d := invalidf("malformed apply_patch body: %v", err)
				return reading{}, &d
			}
			for _, p := range ps {
				// An edit of each header path, as by the apply_patch tool: it
				// needs an edit allow rule like a redirection target.
				it := cc.newPathItem(p, cmd.Dir, false)
				cp.writes = append(cp.writes, it)
				cp.redirects = append(cp.redirects, it)
			}
		}
		parts = append(parts, part{kind: partCommand, text: cmd.Text, cmd: cmd, cp: cp, denyOnly: cmd.Wrapper && nonWrapper > 0, delegated: cmd.Delegated})
	}
	return reading{parts: parts, an: an,
		readOnly:      an.ReadOnly && cc.mayBeReadOnly(),
		wholeReadOnly: an.ReadOnly,
		canAllow:      len(an.Unanalysable) == 0 && len(an.UnsafeAssign) == 0}, nil
}

// offerCommand offers the deny or ask rules that match a simple command:
// shell rules on any of its forms, and Read and Edit path rules on the
// paths it names (Edit ones on what it writes).
func (cc *callCtx) offerCommand(e Effect, p *part, b *best) {
	cmd, cp := p.cmd, p.cp
	cs := subject{cmd: cmd}
	cc.eachRule(e, cp.first, cp.first == nil, func(r *crule) {
		if !b.beats(r) && r.matches(cc, cs) {
			b.offer(r, cmd.Text)
		}
	})
	cc.offerTails(e, cmd, b)
	pathRules := func(k Kind, items []pathItem) {
		for i := range items {
			it := &items[i]
			cc.kindRules(e, k, it, func(r *crule) {
				if r.pathPattern() != nil && !b.beats(r) && cc.matchPath(r, it) {
					b.offer(r, cmd.Text)
				}
			})
		}
	}
	for _, items := range [...][]pathItem{cp.args, cp.reads, cp.writes, cp.redirects} {
		pathRules(KindRead, items)
	}
	if len(cp.writes) > 0 || cmd.MayWrite {
		pathRules(KindEdit, cp.writes)
		pathRules(KindEdit, cp.args)
	}
}

// offerTails offers the deny or ask rules of effect e to the tails of an
// unmodelled command: a program the model does not know may run any of its
// operands as a command (bwrap --bind / / rm -rf x), so every tail of a
// form that starts with a static word is judged as a command of its own,
// by the rules whose literal first word it starts with. Allow rules never
// read tails: the program's own rule decides allow.
func (cc *callCtx) offerTails(e Effect, cmd *shell.Command, b *best) {
	eachTail(cmd, func(t tail) {
		k := []wordindex.Key{indexKey(t.name, t.rest)}
		for _, rs := range [2]*ruleSet{cc.c.session, cc.c.static} {
			if rs == nil {
				continue
			}
			rs.of(e).shell.Under(k, true, func(r *crule) {
				if !b.beats(r) && t.matches(r) {
					b.offer(r, cmd.Text)
				}
			})
		}
	})
}

// A tail is a command an unmodelled program may run: a static operand
// (read by its base name when it is a path: /bin/rm is rm, as for a
// command) and the words after it.
type tail struct {
	name  string
	rest  []shell.Word
	words []shell.Word // name and rest, when name is the operand as written
}

// eachTail calls fn with every tail of every form of an unmodelled command.
func eachTail(cmd *shell.Command, fn func(t tail)) {
	if !cmd.Unmodelled {
		return
	}
	for _, f := range cmd.Forms {
		for i := 1; i < len(f); i++ {
			w := f[i]
			if !w.Static || w.Value == "" {
				continue
			}
			if j := strings.LastIndexByte(w.Value, '/'); j >= 0 && j < len(w.Value)-1 {
				fn(tail{name: w.Value[j+1:], rest: f[i+1:]})
			}
			fn(tail{name: w.Value, rest: f[i+1:], words: f[i:]})
		}
	}
}

// matches reports whether deny or ask rule r matches the tail.
func (t tail) matches(r *crule) bool {
	m, ok := r.m.(shellMatcher)
	if !ok || r.effect != EffectDeny && r.effect != EffectAsk {
		return false
	}
	words := t.words
	if words == nil {
		words = append([]shell.Word{{Value: t.name, Static: true}}, t.rest...)
	}
	return m.p.Match(words, true)
}

// offerCommandAllow offers the shell allow rules that approve a simple
// command as a whole: only when the string is analysable, and only with
// every output redirection target approved as an edit and every secret it
// reads approved by a path rule naming it.
func (cc *callCtx) offerCommandAllow(rd *reading, p *part, b *best) {
	cmd, cp := p.cmd, p.cp
	if !rd.canAllow || cmd.Unanalysable != "" {
		return
	}
	cs := subject{cmd: cmd}
	var allow best
	cc.eachRule(EffectAllow, cp.first, false, func(r *crule) {
		if !allow.beats(r) && r.matches(cc, cs) {
			allow.offer(r, cmd.Text)
		}
	})
	if allow.r != nil && cc.shellTargetsAllowed(cp.redirects, cp.reads) {
		b.offer(allow.r, allow.part)
	}
}

// shellFloors: what cannot be analysed, critical removals, writes of
// protected paths and content searches where a read deny rule could match.
func (cc *callCtx) shellFloors(rd *reading) []Reason {
	enabled := cc.c.enabled
	an := rd.an
	var floors []Reason
	if enabled {
		for _, is := range an.Unanalysable {
			floors = append(floors, Reason{Kind: KindSafety, Part: is.Part, Message: "cannot be analysed: " + is.Message})
		}
	}
	for i := range rd.parts {
		cmd, cp := rd.parts[i].cmd, rd.parts[i].cp
		if enabled && cmd.Unanalysable != "" {
			floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: "cannot be analysed: " + cmd.Unanalysable})
		}
		if cmd.CriticalRemoval != "" {
			floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: "critical removal of " + cmd.CriticalRemoval})
		}
	proc:
		for _, items := range [...][]pathItem{cp.args, cp.reads, cp.writes, cp.redirects, cp.searches} {
			for j := range items {
				if m := procFloor(&items[j], false); m != "" && enabled {
					floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: m})
					break proc
				}
			}
		}
		written := [...][]pathItem{cp.writes, cp.redirects, nil}
		if !cmd.ReadOnly && (len(cp.writes) > 0 || cmd.MayWrite) {
			written[2] = cp.args
		}
	protected:
		for _, items := range written {
			for j := range items {
				if e, form, ok := cc.protectedPart(&items[j]); ok {
					floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: "writes a protected path (" + e + "): " + form})
					break protected
				}
			}
		}
		if enabled {
			for j := range cp.searches {
				if r, dir := cc.searchHitsDenied(&cp.searches[j]); r != nil {
					floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: fmt.Sprintf("content search of %s, where read deny rule %q could match", dir, r.text)})
					break
				}
			}
		}
	}
	return floors
}

// commandFallback is step 6 for a simple command: a read-only command that
// touches only the workspace gets default_read_only (its output
// redirection targets judged like an edit), a plain edit inside it
// acceptEdits' allow, a secret read at least ask.
func (cc *callCtx) commandFallback(rd *reading, p *part) verdict {
	cmd, cp := p.cmd, p.cp
	an := rd.an
	secretRead := false
	for j := range cp.reads {
		if cc.isSecret(&cp.reads[j]) {
			secretRead = true
		}
	}
	ro := cmd.ReadOnly && cc.mayBeReadOnly() && len(an.UnsafeAssign) == 0 && cmd.Dir != ""
	if ro && cmd.Dir != cc.cwd {
		// A command naming no path touches the directory it runs in
		// (a working-directory field, a cd): it must be in the workspace.
		d := cc.newPathItem(cmd.Dir, cmd.Dir, false)
		ro = cc.inWorkspace(&d)
	}
	if ro {
		for _, items := range [...][]pathItem{cp.args, cp.reads, cp.searches} {
			if !cc.allInWorkspace(items) {
				ro = false
			}
		}
	}
	ae := cmd.AcceptEdits && !cc.folded && len(an.UnsafeAssign) == 0 && cmd.Dir != "" && len(cp.writes) > 0
	// Every file it writes and every file it reads (cp's sources) must lie
	// inside the workspace.
	ae = ae && cc.allInWorkspace(cp.writes) && cc.allInWorkspace(cp.reads)
	v := cc.fallback(cmd.Text, ro, secretRead, ae, nil)
	if len(cp.redirects) > 0 && v.outcome == Allow && v.reasons[0].Kind == KindReadOnly {
		// A read-only command with an output redirection: the target is
		// judged like an edit call.
		v = cc.fallback(cmd.Text, false, false, cc.allInWorkspace(cp.redirects), nil)
	}
	if v.outcome == Ask {
		// Only an ask's suggestions reach the decision (combine): they
		// are not built for a command that is allowed or denied.
		if s := suggestShell(cmd); s != "" {
			v.suggest = []string{s}
		}
	}
	return v
}

func (cc *callCtx) allInWorkspace(items []pathItem) bool {
	for i := range items {
		if !cc.inWorkspace(&items[i]) {
			return false
		}
	}
	return true
}

// shellTargetsAllowed checks what a command allowed by a shell rule must
// also satisfy: each output redirection target needs an edit allow rule,
// and a secret read needs a read allow rule naming it.
func (cc *callCtx) shellTargetsAllowed(redirects, reads []pathItem) bool {
	for i := range redirects {
		it := &redirects[i]
		if !it.placed || it.unresolved {
			// A target that cannot be placed (after a dynamic cd) or whose
			// links cannot be read: no allow rule, not even a bare Edit,
			// names it.
			return false
		}
		ok := false
		cc.kindRules(EffectAllow, KindEdit, it, func(r *crule) {
			if !ok && cc.matchPath(r, it) {
				ok = true
			}
		})
		if !ok {
			return false
		}
	}
	for i := range reads {
		it := &reads[i]
		if !cc.isSecret(it) {
			continue
		}
		ok := false
		cc.kindRules(EffectAllow, KindRead, it, func(r *crule) {
			if !ok && namesSecret(r) && cc.matchPath(r, it) {
				ok = true
			}
		})
		if !ok {
			return false
		}
	}
	return true
}

func (cc *callCtx) shellPathItem(cmd *shell.Command, r shell.PathRef) pathItem {
	if r.Path == "" {
		return pathItem{text: r.Text, glob: r.Glob}
	}
	it := cc.newPathItem(r.Path, cmd.Dir, r.Glob)
	if it.placed && pathmatch.HasDotDot(r.Text) {
		// r.Path is clean: a ".." that went through /proc is in r.Text.
		if abs, ok := pathmatch.Abs(r.Path, cmd.Dir, cc.home); ok {
			procDotDot(&it, abs, r.Text)
		}
	}
	if !r.Dynamic {
		cc.physicalForm(&it, r.Text, cmd.Dir)
	}
	it.text = r.Text
	return it
}

// firstWords appends the index keys of every form of cmd to buf and
// returns them, or nil when a command name is not static (then every rule
// must be tried), with the grown buf.
func firstWords(cmd *shell.Command, buf []wordindex.Key) ([]wordindex.Key, []wordindex.Key) {
	start := len(buf)
	for _, f := range cmd.Forms {
		if len(f) == 0 {
			continue
		}
		if !f[0].Static {
			return nil, buf[:start]
		}
		buf = append(buf, indexKey(f[0].Value, f[1:]))
	}
	return buf[start:len(buf):len(buf)], buf
}

// indexKey is the index key of a command named name with arguments rest:
// its leading static ASCII words.
func indexKey(name string, rest []shell.Word) wordindex.Key {
	k := wordindex.Key{N: 1}
	k.Words[0] = name
	for _, w := range rest {
		if k.N == wordindex.MaxWords {
			break
		}
		if !w.Static || !isASCII(w.Value) {
			k.Open = true
			break
		}
		k.Words[k.N] = w.Value
		k.N++
	}
	return k
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// matchShellRule matches a rule against one simple command: deny and ask
// rules any form, allow rules the allow reading.
// analyze parses a shell command for a call, once: rewrites and
// MatchingRules weigh many rules against the same command.
func analyze(cc *callCtx, s string) *shell.Analysis {
	if cc.an != nil && cc.anText == s {
		return cc.an
	}
	dir := cc.dir
	if dir == "" {
		dir = cc.cwd
	}
	opts := shell.Options{Cwd: dir, Home: cc.home, Glob: cc.c.opts.Glob}
	if cc.sc != nil {
		cc.an = &cc.sc.an
		shell.AnalyzeInto(cc.an, s, opts)
	} else {
		cc.an = shell.Analyze(s, opts)
	}
	cc.anText = s
	return cc.an
}
