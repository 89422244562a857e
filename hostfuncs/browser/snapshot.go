package browser

import (
	"maps"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// snapshot takes the AI-mode ARIA snapshot of t (or of the subtree of
// scope), redacts password values and records its refs as the latest. A
// dialog opening meanwhile returns "" (the state reports the dialog).
//
// A scoped snapshot is cut from a snapshot of the whole page, never taken
// of the subtree alone: Playwright resolves a ref only against the latest
// snapshot taken in its frame, so a subtree's own snapshot would leave
// every ref outside it unresolvable (stale) although the page is
// unchanged. Refs are kept on the elements, so the same element keeps the
// same ref across full and scoped snapshots.
func (s *pages) snapshot(ss *session, t *tab, scope string, depth int) (string, error) {
	defer spans.Start("b.snapshot")()
	pageDepth := depth
	if scope != "" {
		var err error
		if _, scope, err = s.locate(ss, t, scope); err != nil {
			return "", err
		}
		pageDepth = 0 // the depth applies to the cut
	}
	snap, dialog, err := race(ss, func() (string, error) { return s.aria(ss, t, pageDepth) })
	if dialog {
		return "", nil
	}
	if err != nil {
		return "", s.sessions.mapErrWithin(ss, err, "taking a snapshot", s.readBudget())
	}
	if err := s.egressShown(ss, t); err != nil {
		return "", err
	}
	s.keepRefs(t, snap)
	whole := snap
	if scope != "" {
		sub, ok := subtree(snap, scope, depth)
		if !ok {
			return "", abi.Errorf(abi.CodeStaleRef, "ref %s is no longer shown on the page (hidden or removed since the snapshot): take a new snapshot and use its refs", scope)
		}
		snap = sub
	}
	return s.redactKept(t, whole, snap), nil
}

// redactKept redacts snap (concealer.redact), a cut of whole or whole
// itself, with what is known of the fields of whole when whole is the
// tab's kept snapshot (an unchanged or patched page asks the page about
// no field it asked about before), and keeps what it learns there.
func (s *pages) redactKept(t *tab, whole, snap string) string {
	defer spans.Start("b.redact")()
	k := t.kept.Load()
	if k == nil || k.snap != whole {
		out, _ := s.concealer.redact(t, snap, nil)
		return out
	}
	known := k.fields
	if k.carried && len(t.plainAhead) > 0 && t.checks.Load() == t.aheadAt+1 {
		// A field this call probed before typing into it: the probe
		// followed the check before this snapshot's (the only check
		// since), and the watchers saw no mutation between the two, so
		// what it read of the field's tag, type, autocomplete, name and id
		// (all secretFieldFn reads) holds. A new snapshot (a mutation: a
		// field may have turned secret) asks.
		known = maps.Clone(known)
		if known == nil {
			known = map[string]bool{}
		}
		for ref, plain := range t.plainAhead {
			if _, ok := known[ref]; !ok {
				known[ref] = plain
			}
		}
	}
	out, learned := s.concealer.redact(t, snap, known)
	if len(learned) > len(k.fields) {
		t.kept.CompareAndSwap(k, &keptSnapshot{doc: k.doc, url: k.url, snap: k.snap, frames: k.frames, everyFrame: k.everyFrame, reach: k.reach, fields: learned, carried: k.carried})
	}
	return out
}

// aria takes the AI-mode ARIA snapshot of the page, with the marks of
// plain elements that take input (marks.go). Boxes, which are only how a
// mark finds its line, cost a large page's snapshot up to twice its time:
// once a snapshot of a document found no marked elements, the next
// snapshots of that document are taken without them, the marks read
// alongside; if such a page gained marked elements meanwhile, the
// snapshot is taken again with boxes, so marks are never lost. Otherwise
// the marks are read first: their pass may give inline elements their
// lines (an empty text node each, marks.go), which the snapshot taken
// right after then has, with boxes only when the pass found marks.
// (Read alongside, such a pass cost a second whole snapshot, on many real
// pages, at every new document.) The pass's own
// change to the page is then checked off (changedSince), so that the
// next action does not count it as the page's. A document with no
// snapshot kept (a new one) is snapshot whatever its watchers say: its
// check is that one, after the marks pass, one round trip instead of two.
func (s *pages) aria(ss *session, t *tab, depth int) (snap string, err error) {
	defer spans.Start("b.aria")()
	wait := s.readBudget()
	doc := t.navSeq.Load() + 1
	// unchecked: the page is to be checked before the snapshot, and has
	// not been: a whole-page snapshot with none kept for its document.
	// raw: the snapshot as taken (keepSnapshot reads its iframe lines).
	unchecked, raw := false, ""
	if depth == 0 {
		url := t.page.URL()
		var why watchAnswer
		if why.Changed = noKeptSnapshot(t, doc); why.Changed != "" {
			// Snapshot whatever a check says: the check, which starts the
			// period the snapshot belongs to, comes after the marks pass,
			// whose own change it then checks off in the same round trip.
			watchFallbacks.add(why.Changed)
			unchecked = true
		} else {
			var kept string
			if kept, why = unchangedSnapshot(t, doc, wait); why.Changed == "" {
				return kept, nil
			}
		}
		s.log.Debug("page snapshot taken", "why", why.Changed, "detail", capString(why.Detail, 200), "url", url)
		spans.Mark("why " + why.Changed + ": " + capString(why.Detail, 120))
		defer func() {
			if err == nil {
				keepSnapshot(t, doc, url, snap, raw)
			}
		}()
	}
	// What a person cannot see goes before the snapshot is kept or shown
	// (visibility.go); runs before the deferred keep above.
	defer func() {
		if err == nil && snap != "" {
			defer spans.Start("b.seen")()
			snap, err = s.seen(t, snap, wait, marksHidden(ss))
		}
	}()
	// checkOff checks the page when the marks pass changed it (its own
	// change, checked off so that the next action does not count it as
	// the page's) or when it was not checked yet: either way, any other
	// change the page made meanwhile is in the snapshot taken next.
	checkOff := func(passChanged bool, shown []int) {
		if depth == 0 && (passChanged || unchecked) {
			changedSince(t, wait, nil, shown)
			unchecked = false
		}
	}
	var marks markSet
	if t.unmarked.Load() == doc {
		checkOff(false, nil)
		found := findMarks(t.page)
		snap, err = takeSnapshot(t, snapshotOptions(depth, false, wait))
		raw = snap
		endMarks := spans.Start("b.marks")
		marks = found(wait)
		endMarks()
		if err != nil || len(marks.marks) == 0 {
			return markLines(snap, nil), err
		}
		t.unmarked.Store(0)
		checkOff(marks.changed, marks.frames)
	} else {
		endMarks := spans.Start("b.marks")
		marks = findMarks(t.page)(wait)
		endMarks()
		checkOff(marks.changed, marks.frames)
	}
	// Boxes only place marks (read before it: none can be missed).
	if snap, err = takeSnapshot(t, snapshotOptions(depth, len(marks.marks) > 0, wait)); err != nil {
		return "", err
	}
	raw = snap
	if len(marks.marks) == 0 {
		t.unmarked.Store(doc)
		return markLines(snap, nil), nil
	}
	return markLines(snap, marks.of(snap)), nil
}

func takeSnapshot(t *tab, o pw.PageAriaSnapshotOptions) (string, error) {
	defer spans.Start("b.ariaSnapshot")()
	lateSettled(t)
	// Playwright resolves refs against the latest snapshot: any other one
	// makes the kept snapshot's refs stale.
	t.kept.Store(nil)
	if snapshotTaken != nil {
		snapshotTaken(o)
	}
	// The judge's walk of the main frame follows the snapshot's pass in
	// the page while its text travels (prejudge.go).
	wait := time.Minute
	if o.Timeout != nil {
		wait = time.Duration(*o.Timeout) * time.Millisecond
	}
	p := startPrejudge(t, wait)
	snap, err := t.page.AriaSnapshot(o)
	if err != nil {
		dropPrejudge(t, p)
	}
	return snap, err
}

// snapshotTaken, when set (by tests), sees the options of every snapshot.
var snapshotTaken func(pw.PageAriaSnapshotOptions)

// snapshotOptions are the ARIA snapshot's options: AI mode (refs), boxes
// only when there are marks to place.
func snapshotOptions(depth int, boxes bool, timeout time.Duration) pw.PageAriaSnapshotOptions {
	o := pw.PageAriaSnapshotOptions{Mode: pw.AriaSnapshotModeAi, Timeout: pw.Float(float64(timeout.Milliseconds()))}
	if boxes {
		o.Boxes = pw.Bool(true)
	}
	if depth > 0 {
		o.Depth = pw.Int(depth)
	}
	return o
}

// keepRefs records the refs of a whole-page snapshot as the latest of t:
// exactly the refs Playwright now resolves.
func (s *pages) keepRefs(t *tab, snap string) {
	refs := map[string]bool{}
	snapRefs(snap, refs)
	t.refs = refs
	t.refLines = refLines(snap)
}

// refLines maps each ref of a snapshot to its line (`- button "Go"
// [ref=e5]`), which an approval shows of the element the call names: read
// back, never asked of the page again (an aria snapshot of the element
// would renumber the page's refs).
func refLines(snap string) map[string]string {
	out := map[string]string{}
	for line := range strings.Lines(snap) {
		i := strings.Index(line, "[ref=")
		if i < 0 {
			continue
		}
		if r, n := refAt(line[i+len("[ref="):]); n > 0 {
			out[r] = strings.TrimSpace(line[:i])
		}
	}
	return out
}

// subtree cuts the element with ref, and what is nested under it, out of a
// snapshot, unindented; depth > 0 keeps that many levels below it (as
// Playwright's depth option: an element at the limit keeps its inline text
// and properties, not its children).
func subtree(snap, ref string, depth int) (string, bool) {
	mark := "[ref=" + ref + "]"
	var b strings.Builder
	base := -1
	for line := range strings.Lines(snap) {
		trimmed := strings.TrimLeft(line, " ")
		ind := len(line) - len(trimmed)
		if base < 0 {
			if strings.HasPrefix(trimmed, "- ") && strings.Contains(trimmed, mark) {
				base = ind
				b.WriteString(trimmed)
			}
			continue
		}
		if ind <= base && strings.TrimSpace(line) != "" {
			break
		}
		level := (ind - base) / 2
		if depth > 0 && level > depth && !(level == depth+1 && strings.HasPrefix(trimmed, "- /")) {
			continue
		}
		b.WriteString(line[base:])
	}
	return strings.TrimRight(b.String(), "\n"), base >= 0
}

// snapRefs adds every [ref=...] of a snapshot to refs (refInSnap, by hand).
func snapRefs(snap string, refs map[string]bool) {
	for rest := snap; ; {
		i := strings.Index(rest, "[ref=")
		if i < 0 {
			return
		}
		rest = rest[i+len("[ref="):]
		if r, n := refAt(rest); n > 0 && strings.HasPrefix(rest[n:], "]") {
			refs[r] = true
		}
	}
}

// refAt reads a ref ((?:f\d+)?e\d+) at the start of s: the ref and its length.
func refAt(s string) (string, int) {
	i := 0
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == 'f' {
		i++
		if !digits() {
			return "", 0
		}
	}
	if i >= len(s) || s[i] != 'e' {
		return "", 0
	}
	i++
	if !digits() {
		return "", 0
	}
	return s[:i], i
}
