package host

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/wasmwright/wasmwright/abi"
)

// Snapshot modes of args.snapshot, which any tool whose result carries a
// snapshot takes (abi/README.md).
const (
	snapDiff = "diff" // the default: changes since the agent's last snapshot
	snapFull = "full"
	snapNone = "none"
)

// maxBaseline bounds one session's remembered snapshot; a larger one is
// not kept, and the next action returns a full snapshot.
const maxBaseline = 4 << 20

// baselines remembers, per personality and session, the last full
// snapshot the agent received, as it received it (compacted and masked),
// and the URL of its page: an action's diff is against it. It keeps at
// most max sessions, dropping the least recently used.
type baselines struct {
	mu    sync.Mutex
	max   int
	order []sessionKey
	m     map[sessionKey]baseline
}

type baseline struct{ snapshot, url string }

type sessionKey struct{ personality, session string }

func (b *baselines) get(k sessionKey) (baseline, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.m[k]
	return s, ok
}

func (b *baselines) put(k sessionKey, v baseline) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drop(k)
	if len(v.snapshot) > maxBaseline {
		return
	}
	if b.m == nil {
		b.m = map[sessionKey]baseline{}
	}
	b.m[k] = v
	b.order = append(b.order, k)
	if len(b.order) > b.max {
		delete(b.m, b.order[0])
		b.order = b.order[1:]
	}
}

func (b *baselines) forget(k sessionKey) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drop(k)
}

func (b *baselines) drop(k sessionKey) {
	if _, ok := b.m[k]; !ok {
		return
	}
	delete(b.m, k)
	for i, o := range b.order {
		if o == k {
			b.order = append(b.order[:i], b.order[i+1:]...)
			break
		}
	}
}

// viewSnapshot gives the agent the snapshot the way args.snapshot asks,
// on the result as it leaves the pipeline (masked): none drops it; after
// an action (a tool that is not read-only) diff, the default, replaces it
// by the changes since the agent's last full snapshot of this session,
// unless the page navigated (result.page is set, or result.source, the
// page's URL the host notes, is not the baseline's), there is no such
// snapshot, the diff is no shorter than the snapshot, or it holds one of
// the session's secret values. A read-only tool's snapshot (such as
// browser_snapshot) that equals the baseline, on the same page, is
// replaced by one line saying so, unless snapshot is full. A full,
// unscoped snapshot the agent receives becomes the session's baseline; views (a read-only tool's ref,
// links, link_filter, full) neither replace it nor are diffed. A failed
// call's result is left as it is.
func (h *Host) viewSnapshot(p *personality, req Request, res *abi.Result, values []string, callErr *abi.Error) *abi.Result {
	if res == nil || res.Snapshot == "" || callErr != nil {
		return res
	}
	v := viewOf(req.Args)
	if v.Snapshot == snapNone {
		res.Snapshot = ""
		return res
	}
	// An action's ref is its target; a read-only tool's is a scope.
	r := p.tools[req.Tool]
	action := r != nil && !r.spec.ReadOnly
	if (v.Ref != "" && !action) || v.Links || v.LinkFilter != "" || v.Full {
		return res
	}
	key := sessionKey{p.name, req.Session}
	prev, had := h.baselines.get(key)
	h.baselines.put(key, baseline{res.Snapshot, res.Source})
	if !had || res.Page != nil || prev.url != res.Source || v.Snapshot == snapFull {
		return res
	}
	if !action {
		// A snapshot the agent asks for is sent again only when it changed:
		// the agent holds the same one already.
		if prev.snapshot == res.Snapshot {
			res.SnapshotDiff, res.Snapshot = snapshotSame, ""
		}
		return res
	}
	// The removed lines come from an earlier snapshot, which may predate a
	// value the session now holds (masked since): such a diff is not sent.
	if d := snapshotDiff(prev.snapshot, res.Snapshot); len(d) < len(res.Snapshot) && !leaked(values, &abi.Result{SnapshotDiff: d}, nil) {
		res.SnapshotDiff, res.Snapshot = d, ""
	}
	return res
}

// snapshotUnchanged is the whole diff of an unchanged page.
const snapshotUnchanged = "Page snapshot unchanged since your last snapshot (its refs stay valid)."

// snapshotSame answers a browser_snapshot of a page whose snapshot is the
// one the agent received last.
const snapshotSame = snapshotUnchanged + ` To receive it whole again, call with snapshot "full".`

// snapshotDiff renders the changes from prev to next, line by line, as an
// agent reads them: a header with the counts, then hunks. A hunk starts
// with context lines ("  "): the changed lines' parent when it is not
// adjacent, then "  …", then the unchanged lines right before the change
// (as few as make its place unique, reading on from the previous hunk).
// Then the changes: "- " a removed line, "+ " an added line, "~ " the new
// text of a line that kept its ref. Lines keep their indentation and refs.
func snapshotDiff(prev, next string) string {
	a, b := strings.Split(prev, "\n"), strings.Split(next, "\n")
	var (
		body                    strings.Builder
		added, removed, changed int
		cursor                  int // old lines before it are accounted for
	)
	for _, op := range difflib.NewMatcher(a, b).GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		ctx := anchor(a, cursor, op.I1)
		if par := parent(a, b, op); par >= 0 && par < op.I1-ctx {
			fmt.Fprintf(&body, "  %s\n  …\n", a[par])
		}
		for _, l := range a[op.I1-ctx : op.I1] {
			fmt.Fprintf(&body, "  %s\n", l)
		}
		old, nw := a[op.I1:op.I2], b[op.J1:op.J2]
		n := min(len(old), len(nw))
		for k := 0; k < n; k++ {
			if ref := refOfLine(old[k]); ref != "" && ref == refOfLine(nw[k]) {
				fmt.Fprintf(&body, "~ %s\n", nw[k])
				changed++
				continue
			}
			fmt.Fprintf(&body, "- %s\n+ %s\n", old[k], nw[k])
			removed++
			added++
		}
		for _, l := range old[n:] {
			fmt.Fprintf(&body, "- %s\n", l)
			removed++
		}
		for _, l := range nw[n:] {
			fmt.Fprintf(&body, "+ %s\n", l)
			added++
		}
		cursor = op.I2
	}
	if body.Len() == 0 {
		return snapshotUnchanged
	}
	return fmt.Sprintf("Page snapshot (changes since your last snapshot: %d added, %d removed, %d changed):\n%s",
		added, removed, changed, strings.TrimRight(body.String(), "\n"))
}

// anchor is how many unchanged lines before old line i (and from cursor
// on) a hunk shows so that its place is right after the first place,
// reading from cursor, where those lines occur. At least one when there
// is one; all of them at worst, which is unique, and at once when more
// than maxAnchor would be needed (such a diff is likely to outgrow the
// page, which is then sent whole).
func anchor(a []string, cursor, i int) int {
	for k := min(1, i-cursor); k < i-cursor && k <= maxAnchor; k++ {
		if firstAt(a, cursor, a[i-k:i]) == i-k {
			return k
		}
	}
	return i - cursor
}

const maxAnchor = 64

// firstAt is the first index from cursor where a holds the lines want.
func firstAt(a []string, cursor int, want []string) int {
	for s := cursor; s+len(want) <= len(a); s++ {
		if equalLines(a[s:s+len(want)], want) {
			return s
		}
	}
	return -1
}

func equalLines(x, y []string) bool {
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// parent is the old line that holds the change: the nearest line before
// it indented less than its first line, or -1.
func parent(a, b []string, op difflib.OpCode) int {
	first := ""
	switch {
	case op.I2 > op.I1:
		first = a[op.I1]
	default:
		first = b[op.J1]
	}
	ind := indent(first)
	for i := op.I1 - 1; i >= 0; i-- {
		if indent(a[i]) < ind {
			return i
		}
	}
	return -1
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

var refRE = regexp.MustCompile(`\[ref=([^\]]+)\]`)

func refOfLine(l string) string {
	if m := refRE.FindStringSubmatch(l); m != nil {
		return m[1]
	}
	return ""
}
