package browser

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/readable"
)

// Closed shadow roots: a web component's attachShadow({mode: "closed"})
// shows text a sighted user reads, but no script reaches it, Playwright's
// ARIA snapshot included (it walks open roots only). The host reaches it
// through the DevTools protocol, never through the page: before each
// judge pass and read, the protocol's search finds the closed roots that
// hold a slot, whatever their host (reachSlotted, below); and the judge's
// walk (and browser_read's) in the isolated world notes the elements that
// may host a closed root with none (closed.js); for those only, the
// tab's CDP session (tabProtocol) describes each (DOM.describeNode names its shadow
// root and the root's type) and resolves each closed root into the
// isolated world of its frame (DOM.resolveNode with that world's
// execution context), where it is kept for the document's life (a host
// never loses its root); the walk then runs again. The judge and browser_read walk those roots as
// they walk open ones: their text is judged like any other. Nothing runs
// in the page's own world and nothing is written to its DOM, so the page
// can neither see nor undo it. A page with no new candidate and no slot
// pays the walk's look at each element's name and one search.
//
// The snapshot shows such text as text lines under the nearest element
// that has a line, without refs: Playwright's locators cannot reach into
// a closed root, so a ref there could never act (an agent acts on the
// host's ref, by coordinates, or by keyboard).

//go:embed closed.js
var closedJS string

// closedCost counts reachClosed's passes and their time, for the cost
// measurement (TestClosedCost).
var closedCost closedStats

type closedStats struct{ passes, nanos atomic.Int64 }

func (c *closedStats) add(t0 time.Time) {
	c.passes.Add(1)
	c.nanos.Add(int64(time.Since(t0)))
}

// closedText is text shown in a closed root, with the refs of the
// elements around it and of the elements before those, nearest first.
type closedText struct {
	Refs  []string `json:"refs"`
	After []string `json:"after"`
	Text  string   `json:"text"`
}

// judgeClosed: the judge found elements that may host a closed root;
// their roots are reached and the page judged again. A protocol call that
// fails fails the whole: the judge must not answer for a page half
// reached.
func judgeClosed(t *tab, wait time.Duration, own, snap string, urls []string) (judgement, error) {
	if err := reachClosed(t); err != nil {
		return judgement{}, err
	}
	if _, err := t.remote.each(t, wait, urls, func(cdp pw.CDPSession) (int, error) { return 0, stashWorlds(cdp) }); err != nil {
		return judgement{}, abi.Errorf(abi.CodeExecutionFailed, "reaching the closed shadow roots of a frame failed (%s): take a new snapshot", firstLine(err.Error()))
	}
	return judgePage(t, wait, own, snap, nil)
}

// reachClosed keeps the closed roots of the candidates the last walk
// noted, in the isolated world of each frame.
func reachClosed(t *tab) error {
	defer closedCost.add(time.Now())
	if err := stashClosed(t); err != nil {
		return abi.Errorf(abi.CodeExecutionFailed, "reaching the page's closed shadow roots failed (%s): take a new snapshot", firstLine(err.Error()))
	}
	return nil
}

// stashClosed describes the candidates the probes kept, in every isolated
// world of the page's frames, and keeps their closed roots there, on the
// tab's protocol session (tabProtocol: a second try on a new session
// finds the candidates a failed one left).
func stashClosed(t *tab) error {
	return t.proto.do(t, stashWorlds)
}

func stashWorlds(cdp pw.CDPSession) error {
	worlds, err := isolatedWorlds(cdp)
	if err != nil {
		return err
	}
	for _, id := range worlds {
		if err := stashWorld(cdp, id); err != nil {
			return err
		}
	}
	return nil
}

// utilityWorld is how Playwright names the isolated world its scripts
// (and the judge) run in.
const utilityWorld = "__playwright_utility_world"

// isolatedWorlds are the execution contexts of Playwright's isolated
// world in the page's frames.
func isolatedWorlds(cdp pw.CDPSession) ([]int, error) {
	all, err := execContexts(cdp)
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, x := range all {
		if x.id != 0 && strings.HasPrefix(x.name, utilityWorld) {
			ids = append(ids, x.id)
		}
	}
	return ids, nil
}

// stashFn keeps the closed roots it is given in the isolated world, by
// host, and marks the candidates (this) checked: a candidate with no
// closed root is not described again.
const stashFn = `function(...roots) {
	const m = globalThis.__wwClosedRoots && globalThis.__wwClosedRoots.doc === document ? globalThis.__wwClosedRoots : (globalThis.__wwClosedRoots = {doc: document, roots: new Map()});
	for (const r of roots) m.roots.set(r.host, r);
	const checked = globalThis.__wwChecked ??= new WeakSet();
	for (const e of this) checked.add(e);
	globalThis.__wwCand = undefined;
	return m.roots.size;
}`

const closedGroup = "ww-closed"

// stashWorld: the candidates the probe kept in the isolated world id,
// described one by one (at the same time), their closed roots resolved
// into that world and kept there.
func stashWorld(cdp pw.CDPSession, id int) error {
	defer cdp.Send("Runtime.releaseObjectGroup", map[string]any{"objectGroup": closedGroup})
	var cand struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	if err := cdpInto(cdp, "Runtime.evaluate", map[string]any{"expression": "globalThis.__wwCand", "contextId": id, "objectGroup": closedGroup}, &cand); err != nil {
		return err
	}
	if cand.Result.ObjectID == "" {
		return nil // none in this frame
	}
	var props struct {
		Result []struct {
			Name  string `json:"name"`
			Value struct {
				ObjectID string `json:"objectId"`
			} `json:"value"`
		} `json:"result"`
	}
	if err := cdpInto(cdp, "Runtime.getProperties", map[string]any{"objectId": cand.Result.ObjectID, "ownProperties": true}, &props); err != nil {
		return err
	}
	var hosts []string
	for _, p := range props.Result {
		if p.Value.ObjectID != "" && p.Name != "length" && p.Name != "__proto__" {
			hosts = append(hosts, p.Value.ObjectID)
		}
	}
	roots := make([]string, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			roots[i], errs[i] = closedRootOf(cdp, h, id)
		}()
	}
	wg.Wait()
	args := []map[string]any{}
	for i := range hosts {
		if errs[i] != nil {
			return errs[i]
		}
		if roots[i] != "" {
			args = append(args, map[string]any{"objectId": roots[i]})
		}
	}
	_, err := cdp.Send("Runtime.callFunctionOn", map[string]any{"objectId": cand.Result.ObjectID, "functionDeclaration": stashFn, "arguments": args, "returnByValue": true})
	return err
}

// closedRootOf is the closed shadow root of the element host (an object
// of the world id), resolved into that world; "" when it has none.
func closedRootOf(cdp pw.CDPSession, host string, id int) (string, error) {
	var d struct {
		Node struct {
			ShadowRoots []struct {
				BackendNodeID  int    `json:"backendNodeId"`
				ShadowRootType string `json:"shadowRootType"`
			} `json:"shadowRoots"`
		} `json:"node"`
	}
	if err := cdpInto(cdp, "DOM.describeNode", map[string]any{"objectId": host, "depth": 0}, &d); err != nil {
		return "", err
	}
	for _, r := range d.Node.ShadowRoots {
		if r.ShadowRootType != "closed" {
			continue
		}
		var o struct {
			Object struct {
				ObjectID string `json:"objectId"`
			} `json:"object"`
		}
		if err := cdpInto(cdp, "DOM.resolveNode", map[string]any{"backendNodeId": r.BackendNodeID, "executionContextId": id, "objectGroup": closedGroup}, &o); err != nil {
			return "", err
		}
		return o.Object.ObjectID, nil
	}
	return "", nil
}

// Closed roots that slot light content, wherever their host: no script
// can tell a plain element (a div, a p, a span) with a closed root from
// one with none, and such a root may slot the element's light text into
// a wrapper that hides it (opacity 0, a filter, a clip, a box of no
// size, a cover) while the light tree shows nothing of it. The
// protocol's search (DOM.performSearch) walks every document of the
// page's process through every shadow root, closed ones included, in the
// renderer, with no copy of the tree: for the query "<slot>" it answers
// the slot elements (and any text or attribute holding those six
// letters), each then resolved into the isolated world of its frame,
// where its root is kept when it is closed and new (slottedFn). It runs
// before every read, and behind every snapshot, beside the judge's walk
// (a walk it kept new roots for is asked again: seen, prejudge.go): a
// page with no slot pays one search (it answers none) and nothing else. A closed root with no slot
// slots nothing (its host's light content has no box, and is judged
// hidden); it is found only on a custom element (closed.js).

// slottedCost counts reachSlotted's passes and their time (TestClosedCost).
var slottedCost closedStats

// reachSlotted keeps, in the isolated world of each frame of t's page,
// the closed roots that hold a slot. A protocol call that fails fails
// the pass: the judge must not answer for a page half reached. So does
// one that has not answered within wait (a protocol call has no bound of
// its own, and a page's dialog opened meanwhile holds its renderer); the
// search left running keeps the tab's session (tabProtocol.do) until it
// answers: the passes meanwhile fail the same way, and the direct
// check's find waits (the checks go through Playwright meanwhile).
func reachSlotted(t *tab, wait time.Duration) error {
	_, err := reachSlottedCount(t, wait)
	return err
}

// reachSlottedCount is reachSlotted, answering how many closed roots it
// kept that the worlds had not kept before (searchSlotsCount).
func reachSlottedCount(t *tab, wait time.Duration) (int, error) {
	defer slottedCost.add(time.Now())
	var kept atomic.Int64 // (written by a search bounded may leave running)
	err := bounded(wait, func() error {
		return t.proto.do(t, func(cdp pw.CDPSession) error {
			n, err := searchSlotsCount(cdp)
			kept.Store(int64(n))
			return err
		})
	})
	if err != nil {
		return 0, abi.Errorf(abi.CodeExecutionFailed, "reaching the page's closed shadow roots failed (%s): take a new snapshot", firstLine(err.Error()))
	}
	return int(kept.Load()), nil
}

// slotQuery is what the search asks for: elements named slot (the
// brackets make it the exact tag name); an invalid selector and XPath
// both, so only the plain walk answers.
const slotQuery = "<slot>"

// searchSlotsCount searches a page's process on a protocol session (the
// tab's, through tabProtocol.do: one that fails is dropped, and a new one
// tries once more) and keeps the closed roots of the slots it finds in
// every isolated world; it answers how many it kept that the worlds had
// not kept before. The DOM agent the search turns on is turned off after
// it (a page's mutations send it nothing meanwhile).
func searchSlotsCount(cdp pw.CDPSession) (int, error) {
	if _, err := cdp.Send("DOM.getDocument", map[string]any{"depth": 0}); err != nil {
		return 0, fmt.Errorf("DOM.getDocument: %w", err)
	}
	defer cdp.Send("DOM.disable", nil)
	var found struct {
		SearchID    string `json:"searchId"`
		ResultCount int    `json:"resultCount"`
	}
	if err := cdpInto(cdp, "DOM.performSearch", map[string]any{"query": slotQuery, "includeUserAgentShadowDOM": false}, &found); err != nil {
		return 0, err
	}
	if found.ResultCount == 0 {
		return 0, nil
	}
	defer cdp.Send("DOM.discardSearchResults", map[string]any{"searchId": found.SearchID})
	var res struct {
		NodeIDs []int `json:"nodeIds"`
	}
	if err := cdpInto(cdp, "DOM.getSearchResults", map[string]any{"searchId": found.SearchID, "fromIndex": 0, "toIndex": found.ResultCount}, &res); err != nil {
		return 0, err
	}
	worlds, err := isolatedWorlds(cdp)
	if err != nil {
		return 0, err
	}
	kept := 0
	for _, id := range worlds {
		n, err := stashSlots(cdp, id, res.NodeIDs)
		if err != nil {
			return kept, err
		}
		kept += n
	}
	return kept, nil
}

// slottedFn keeps, in the isolated world it runs in, the closed roots of
// the slots it is given that are its document's, when new; it answers
// how many were.
const slottedFn = `function(...slots) {
	const m = globalThis.__wwClosedRoots && globalThis.__wwClosedRoots.doc === document ? globalThis.__wwClosedRoots : (globalThis.__wwClosedRoots = {doc: document, roots: new Map()});
	let n = 0;
	for (const s of slots) {
		if (!s || s.localName !== "slot" || s.ownerDocument !== document) continue;
		const r = s.getRootNode();
		// (Not instanceof: a node first reached from another frame's
		// world has that frame's prototypes.)
		if (r.nodeType === 11 && r.host && r.mode === "closed" && !m.roots.has(r.host)) { m.roots.set(r.host, r); n++; }
	}
	return n;
}`

// stashSlots resolves the nodes the search found into the isolated world
// id (at most slotsAtOnce at the same time) and keeps the closed roots of
// the slots among them that are that world's document's; it answers how
// many it kept that the world had not.
func stashSlots(cdp pw.CDPSession, id int, nodes []int) (int, error) {
	defer cdp.Send("Runtime.releaseObjectGroup", map[string]any{"objectGroup": closedGroup})
	objs := make([]string, len(nodes))
	errs := make([]error, len(nodes))
	sem := make(chan struct{}, slotsAtOnce)
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var o struct {
				Object struct {
					ObjectID string `json:"objectId"`
				} `json:"object"`
			}
			errs[i] = cdpInto(cdp, "DOM.resolveNode", map[string]any{"nodeId": n, "executionContextId": id, "objectGroup": closedGroup}, &o)
			objs[i] = o.Object.ObjectID
		}()
	}
	wg.Wait()
	args := []map[string]any{}
	for i := range nodes {
		if errs[i] != nil && strings.Contains(errs[i].Error(), "No node with given id") {
			continue // it left the document since the search: nothing of it to judge
		}
		if errs[i] != nil {
			return 0, errs[i]
		}
		if objs[i] != "" {
			args = append(args, map[string]any{"objectId": objs[i]})
		}
	}
	if len(args) == 0 {
		return 0, nil
	}
	var kept struct {
		Result struct {
			Value int `json:"value"`
		} `json:"result"`
	}
	err := cdpInto(cdp, "Runtime.callFunctionOn", map[string]any{"executionContextId": id, "functionDeclaration": slottedFn, "arguments": args, "returnByValue": true}, &kept)
	return kept.Result.Value, err
}

// slotsAtOnce bounds the resolutions in flight.
const slotsAtOnce = 32

// cdpInto sends a protocol command and decodes its answer into into.
func cdpInto(cdp pw.CDPSession, method string, params map[string]any, into any) error {
	v, err := cdp.Send(method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// readDOM reads the page's visible DOM (visibleDOMJS) into page, in the
// isolated world: through the closed roots, and out of reach of the
// page's own scripts (a page that redefines Range or getComputedStyle in
// its world would otherwise make hidden text read as shown). A walk that
// met new candidates is read again once their roots are reached.
func (s *inspector) readDOM(ss *session, t *tab, page *readable.Page) error {
	if _, err := race0(ss, func() error { return reachSlotted(t, s.readBudget()) }); err != nil {
		return err
	}
	if err := s.readIsolated(ss, t, page); err != nil || page.Candidates == 0 {
		return err
	}
	if _, err := race0(ss, func() error { return reachClosed(t) }); err != nil {
		return err
	}
	return s.readIsolated(ss, t, page)
}

func (s *inspector) readIsolated(ss *session, t *tab, page *readable.Page) error {
	wait := s.readBudget()
	text, dialog, err := race(ss, func() (string, error) {
		return t.page.MainFrame().Locator(visibilityEngine + "=read").TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
	})
	if dialog {
		return errDialogOpen(openDialog(ss, t))
	}
	if err != nil {
		return s.sessions.mapErr(ss, err, "reading the page")
	}
	if err := s.pages.egressShown(ss, t); err != nil {
		return err
	}
	*page = readable.Page{}
	return json.Unmarshal([]byte(text), page)
}
