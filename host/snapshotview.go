package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/snapdiff"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
	"github.com/wasmwright/wasmwright/internal/spans"
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

// baseline is the agent's last full snapshot, uncollapsed, its page's
// URL, and the refs the agent read on the page before that a collapse
// left out, mapped to the same elements' refs on this page
// (snapdiff.Collapse; alias).
type baseline struct {
	snapshot, url string
	aliases       map[string]string
}

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

// view gives the agent the snapshot the way args.snapshot asks,
// on the result as it leaves the pipeline (masked): none drops it; after
// an action (a tool that is not read-only) diff, the default, replaces it
// by the changes since the agent's last full snapshot of this session,
// unless the page navigated (result.page is set, or result.source, the
// page's URL the host notes, is not the baseline's), there is no such
// snapshot, the diff is no shorter than the snapshot, or it holds one of
// the session's secret values. A new document's snapshot on the
// baseline's origin has the subtrees it shares with it, alike but for
// refs, collapsed (snapdiff.Collapse; alias maps the refs), unless
// snapshot is full. A read-only tool's snapshot (such as
// browser_snapshot) that equals the baseline, on the same page, is
// replaced by one line saying so, unless snapshot is full. A full,
// unscoped snapshot the agent receives becomes the session's baseline; views (a read-only tool's ref,
// links, link_filter, full) neither replace it nor are diffed. A failed
// call's result is left as it is.
func (bs *baselines) view(p *personality, req Request, res *abi.Result, values []string, callErr *abi.Error) *abi.Result {
	defer spans.Start("h.view")()
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
	prev, had := bs.get(key)
	next := baseline{snapshot: res.Snapshot, url: res.Source}
	if had && res.Page == nil && prev.url == res.Source {
		next.aliases = prev.aliases // the same document: they still hold
	}
	newDoc := res.Page != nil || prev.url != res.Source
	if had && res.Page != nil && v.Snapshot != snapFull && sameSite(prev.url, res.Source) {
		// A new document: what it shares with the site's last page
		// (header, navigation, footer) the agent has read already.
		var fresh map[string]string
		res.Snapshot, _, fresh = snapdiff.Collapse(prev.snapshot, res.Snapshot)
		next.aliases = chainAliases(prev.aliases, fresh)
	}
	bs.put(key, next)
	if !had || v.Snapshot == snapFull || newDoc {
		return res
	}
	if !action {
		// A snapshot the agent asks for is sent again only when it changed:
		// the agent holds the same one already.
		if prev.snapshot == res.Snapshot {
			res.SnapshotDiff, res.Snapshot = snapdiff.Same, ""
		}
		return res
	}
	// The removed lines come from an earlier snapshot, which may predate a
	// value the session now holds (masked since): such a diff is not sent.
	if d := snapdiff.Diff(prev.snapshot, res.Snapshot); len(d) < len(res.Snapshot) && !leaked(values, &abi.Result{SnapshotDiff: d}, nil) {
		res.SnapshotDiff, res.Snapshot = d, ""
	}
	return res
}

// sameSite reports whether two page URLs have one http(s) origin.
func sameSite(a, b string) bool {
	o := weborigin.Of(a)
	return o != weborigin.Opaque && o == weborigin.Of(b)
}

// alias gives a call's arguments the refs of the page the session is
// on in place of the refs the agent read on the page before, for the
// elements a collapsed snapshot did not print again (their lines said
// the old refs work). Any argument named ref or ending in _ref, at any
// depth, is looked up; a ref of the page before is never a ref of this
// one (Playwright gives each document's refs a prefix of their own), so
// an alias cannot hide one.
func (bs *baselines) alias(p *personality, req Request) json.RawMessage {
	b, ok := bs.get(sessionKey{p.name, req.Session})
	if !ok || len(b.aliases) == 0 || !bytes.Contains(req.Args, []byte("ref")) {
		return req.Args
	}
	d := json.NewDecoder(bytes.NewReader(req.Args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || !swapRefs(v, "", b.aliases) {
		return req.Args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return req.Args
	}
	return out
}

func swapRefs(v any, key string, aliases map[string]string) (changed bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "ref" || strings.HasSuffix(k, "_ref")) {
				if to, ok := aliases[s]; ok {
					x[k], changed = to, true
				}
				continue
			}
			changed = swapRefs(e, k, aliases) || changed
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && (key == "refs" || strings.HasSuffix(key, "_refs")) {
				if to, ok := aliases[s]; ok {
					x[i], changed = to, true
				}
				continue
			}
			changed = swapRefs(e, key, aliases) || changed
		}
	}
	return changed
}

// maxAliases bounds a session's aliases: a long walk through one site
// keeps the refs of its last pages.
const maxAliases = 4096

// chainAliases is fresh (the last page's refs -> this page's) with the
// older aliases that still lead somewhere carried through it: a header
// collapsed on page after page was printed with refs only on the first,
// and those are the refs the agent holds.
func chainAliases(old, fresh map[string]string) map[string]string {
	if len(fresh) == 0 {
		return nil
	}
	out := make(map[string]string, len(fresh)+len(old))
	for a, b := range old {
		if c, ok := fresh[b]; ok && len(out) < maxAliases-len(fresh) {
			out[a] = c
		}
	}
	for b, c := range fresh {
		out[b] = c
	}
	return out
}
