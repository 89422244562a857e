package browser

import (
	"sync/atomic"

	pw "github.com/mxschmitt/playwright-go"
)

// Changes: an ARIA snapshot walks the whole document, and most of an
// action's time on a large page is that walk. A page an action did not
// change needs none: the snapshot taken last is still the page's. Each
// document gets a change watcher (changesJS), a selector engine Playwright
// runs in its isolated world, out of the page's reach: a page's scripts
// can neither see it nor silence it. Asking it "check" answers whether the
// document may have changed since the previous check and starts a new
// period; aria asks right before each whole-page snapshot, so a change
// made while the snapshot is taken counts for the next one.
//
// It decides conservatively. Changed is: any DOM mutation (childList,
// attributes, text) in the document; another focused or hovered element,
// form control value, checked or selected state, or open popover (compared
// at each check, so no page handler can hide them); scrolling, resizing,
// a hash or history change, an element or font loading, a transition or
// animation event, a content-visibility change (the events, caught before
// the page's own listeners see them). Unsure, so changed every time: a
// document with an open shadow root or a custom element (its shadow tree
// is not watched; a custom element may attach one when defined), running
// or filling animations (they can change visibility with no event), and
// a page with frames (their documents are not asked; aria checks
// page.Frames). A new document has a new watcher, which starts changed.
// Not seen: an event handler property assigned by script with nothing else
// changing ([clickable] and its kin, hints, come with the next change).
const changesJS = `(() => {
	const doc = document;
	let dirty = true, seen = "";
	const mark = () => { dirty = true; };
	const mo = new MutationObserver(mark);
	mo.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
	for (const type of ["focusin", "focusout", "input", "change", "toggle", "scroll", "resize", "hashchange", "popstate",
		"pageshow", "load", "error", "transitionrun", "transitionend", "transitioncancel", "animationstart", "animationend",
		"animationcancel", "animationiteration", "mouseover", "mouseout", "contentvisibilityautostatechange",
		"fullscreenchange", "visibilitychange", "close", "cancel", "slotchange", "reset"]) {
		window.addEventListener(type, mark, true);
	}
	try { doc.fonts.addEventListener("loadingdone", mark); } catch (e) { dirty = true; }
	const ids = new WeakMap();
	let nextID = 0;
	const id = e => {
		if (!e) return "-";
		if (!ids.has(e)) ids.set(e, ++nextID);
		return ids.get(e);
	};
	// state is what a check compares rather than trusts an event for.
	const state = () => {
		let s = id(doc.activeElement) + "|";
		for (const e of doc.querySelectorAll(":hover")) s += id(e) + ",";
		s += "|";
		try { for (const e of doc.querySelectorAll(":popover-open")) s += id(e) + ","; } catch (e) { s += "?"; }
		s += "|";
		for (const e of doc.querySelectorAll("input,textarea,select,option")) {
			s += id(e) + ":" + (e.value ?? "").length + ":" + (e.value ?? "") + (e.checked ? "c" : "") + (e.indeterminate ? "i" : "") + (e.selected ? "s" : "") + ",";
		}
		return s;
	};
	const unsure = () => {
		if (doc.getAnimations && doc.getAnimations().length) return true;
		for (const e of doc.querySelectorAll("*")) {
			if (e.shadowRoot || e.localName.includes("-")) return true;
		}
		return false;
	};
	const check = () => {
		if (mo.takeRecords().length) dirty = true;
		const now = state();
		const changed = dirty || now !== seen || unsure();
		dirty = false;
		seen = now;
		return changed;
	};
	const queryAll = (root, body) => body === "check" && check() ? [doc.documentElement] : [];
	return { query: (root, body) => queryAll(root, body)[0], queryAll };
})()`

// changeEngine is the selector engine's name: ww-changes=check.
const changeEngine = "ww-changes"

// registerChanges installs the change watcher on a driver: every browser
// context created on it afterwards has it in every document.
func registerChanges(p *pw.Playwright) error {
	src := changesJS
	return p.Selectors.Register(changeEngine, pw.Script{Content: &src}, pw.SelectorsRegisterOptions{ContentScript: pw.Bool(true)})
}

// keptSnapshot is a tab's latest whole-page snapshot (aria's result), the
// document it is of and the page's URL then (a script may change the URL
// of a document without an event the watcher sees).
type keptSnapshot struct {
	doc       int64
	url, snap string
}

// changedSince asks the main frame's watcher whether the document may have
// changed since its previous check, which this one ends. Any failure, or a
// page with frames, is a change.
func changedSince(t *tab) bool {
	if len(t.page.Frames()) > 1 {
		return true
	}
	n, err := t.page.Locator(changeEngine + "=check").Count()
	return err != nil || n != 0
}

// unchangedSnapshot is the snapshot aria kept of document doc when the
// page has not changed since, and whether it was. It checks the page
// whether or not one was kept: the check starts the period the snapshot
// aria takes next belongs to.
func unchangedSnapshot(t *tab, doc int64) (string, bool) {
	kept := t.kept.Swap(nil)
	if changedSince(t) || kept == nil || kept.doc != doc || kept.url != t.page.URL() {
		return "", false
	}
	snapshotsSkipped.Add(1)
	t.kept.Store(kept)
	return kept.snap, true
}

// keepSnapshot records snap as the whole-page snapshot of document doc
// at url, taken after a check (url read before it).
func keepSnapshot(t *tab, doc int64, url, snap string) {
	t.kept.Store(&keptSnapshot{doc: doc, url: url, snap: snap})
}

// snapshotsSkipped counts the snapshots answered by unchangedSnapshot,
// for tests and benchmarks: a skipped snapshot is seen here, not in time.
var snapshotsSkipped atomic.Int64
