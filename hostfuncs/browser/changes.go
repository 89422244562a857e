package browser

import (
	"slices"
	"strconv"
	"strings"
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
// attributes, text) in the document; another hovered element, form
// control value, checked or selected state, open popover, or the
// document gaining or losing focus (compared at each check, so no page
// handler can hide them); resizing, a hash or history change, an element
// or font loading, a transition or animation event, a content-visibility
// change, a popover or details toggle, a transition of anything but
// colours, outlines and shadows (the events, caught before the page's own
// listeners see them). Unsure, so changed every time: a document with an
// open shadow root or a custom element (its shadow tree is not watched; a
// custom element may attach one when defined), running or filling
// animations other than such transitions (they can change visibility
// with no event), and
// a page with frames (their documents are not asked; aria checks
// page.Frames). A new document has a new watcher, which starts changed.
//
// A focus that moved, with nothing else changed, is answered from the
// kept snapshot with its [active] mark moved (moveActive) to the newly
// focused element's line, found by the ref Playwright keeps on that
// element in the same isolated world. Unless a stylesheet could make
// focus change more than that mark (:focus-within, :has(), a combinator
// after :focus, a :focus rule on display, visibility, content, cursor,
// pointer events or size, or a stylesheet it cannot read): then changed.
//
// Not seen: an event handler property assigned by script with nothing else
// changing ([clickable] and its kin, hints, come with the next change).
const changesJS = `(() => {
	const doc = document;
	let dirty = true, seen = "";
	const mark = () => { dirty = true; };
	const mo = new MutationObserver(mark);
	mo.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
	// A transition of colours, outlines or shadows (as :focus styles
	// start) changes no line of a snapshot; any other may.
	const harmless = /^(color|background-color|border(-(top|right|bottom|left|block|inline)(-(start|end))?)?-color|outline(-color|-width|-style|-offset)?|text-decoration-color|caret-color|fill|stroke|box-shadow|text-shadow|accent-color)$/;
	for (const type of ["transitionrun", "transitionend", "transitioncancel"]) {
		window.addEventListener(type, e => { if (!harmless.test(e.propertyName)) dirty = true; }, true);
	}
	for (const type of ["toggle", "resize", "hashchange", "popstate",
		"pageshow", "load", "error", "animationstart", "animationend",
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
	// state is what a check compares rather than trusts an event for;
	// the focused element apart.
	const state = () => {
		let s = doc.hasFocus() ? "F|" : "f|";
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
		if (doc.getAnimations && doc.getAnimations().some(a => !harmless.test(a.transitionProperty || ""))) return true;
		for (const e of doc.querySelectorAll("*")) {
			if (e.shadowRoot || e.localName.includes("-")) return true;
		}
		return false;
	};
	// focusShows: a stylesheet may show or hide an element other than the
	// focused one by focus (:focus-within, :has(), a combinator after
	// :focus), change the focused one's line (its display, visibility,
	// content, cursor, pointer events or size), or cannot be read (another
	// origin's): unsure.
	const focusShows = () => {
		const sheets = [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])];
		const rules = [];
		try {
			for (const sh of sheets) rules.push(...sh.cssRules);
			for (let i = 0; i < rules.length; i++) {
				const r = rules[i];
				if (r.cssRules) rules.push(...r.cssRules);
				if (r.styleSheet) rules.push(...r.styleSheet.cssRules);
				const sel = r.selectorText;
				if (!sel || !sel.includes("focus")) continue;
				if (/focus-within|:has\(|&/.test(sel) || /:focus[a-z-]*[^,]*?[\s>+~)]/.test(sel)) return true;
				// On the focused element itself: what can change its line.
				if (/display|visibility|content|cursor|pointer-events|width|height/.test(r.style ? r.style.cssText : "?")) return true;
			}
		} catch (e) {
			return true;
		}
		return false;
	};
	let active = null;
	// check answers 0 when nothing changed, 1 when the page may have, and
	// 2 + n when only the focus moved, to the element of ref e<n> (Playwright's
	// ref of it, on the element in this isolated world).
	const check = () => {
		if (mo.takeRecords().length) dirty = true;
		const now = state(), was = active;
		active = doc.activeElement;
		const changed = dirty || now !== seen || unsure();
		dirty = false;
		seen = now;
		if (changed) return 1;
		if (active === was) return 0;
		const m = /e(\d+)$/.exec((active && active._ariaRef && active._ariaRef.ref) || "");
		return m && doc.hasFocus() && !focusShows() ? 2 + Number(m[1]) : 1;
	};
	const queryAll = (root, body) => {
		if (body !== "check") return [];
		const n = check();
		if (n < 2) return n ? [doc.documentElement] : [];
		const all = doc.querySelectorAll("*");
		return all.length >= n ? [...all].slice(0, n) : [doc.documentElement];
	};
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
// changed since its previous check, which this one ends: changed, or
// only the focus moved (to the element of ref number focus, > 0), or
// neither. Any failure, or a page with frames, is a change.
func changedSince(t *tab) (changed bool, focus int) {
	if len(t.page.Frames()) > 1 {
		return true, 0
	}
	n, err := t.page.Locator(changeEngine + "=check").Count()
	switch {
	case err != nil || n == 1:
		return true, 0
	case n >= 2:
		return false, n - 2
	}
	return false, 0
}

// unchangedSnapshot is the snapshot of document doc when the page has not
// changed since aria kept one, or only its focus moved (the kept one with
// [active] moved), and whether it was. It checks the page whether or not
// one was kept: the check starts the period the snapshot aria takes next
// belongs to.
func unchangedSnapshot(t *tab, doc int64) (string, bool) {
	kept := t.kept.Swap(nil)
	changed, focus := changedSince(t)
	if changed || kept == nil || kept.doc != doc || kept.url != t.page.URL() {
		return "", false
	}
	if focus > 0 {
		snap, ok := moveActive(kept.snap, focus)
		if !ok {
			return "", false
		}
		kept = &keptSnapshot{doc: kept.doc, url: kept.url, snap: snap}
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

// moveActive moves the [active] mark of snap to the line of ref number n
// (of the main frame: its refs' prefix): taken off the one line that has
// it, put on that line where Playwright renders it (after [checked],
// [disabled] and [expanded], before the others). It fails, so the page is
// snapshot, when the ref is not on exactly one line, or [active] on more
// than one.
func moveActive(snap string, n int) (string, bool) {
	lines := strings.Split(snap, "\n")
	prefix := ""
	if i := strings.Index(snap, "[ref="); i >= 0 {
		if r, _ := refAt(snap[i+len("[ref="):]); strings.Contains(r, "e") {
			prefix = r[:strings.LastIndex(r, "e")]
		}
	}
	want := "[ref=" + prefix + "e" + strconv.Itoa(n) + "]"
	target, from := -1, -1
	for i, l := range lines {
		attrs := lineAttrs(l)
		if slices.Contains(attrs, want) {
			if target >= 0 {
				return "", false
			}
			target = i
		}
		if slices.Contains(attrs, "[active]") {
			if from >= 0 {
				return "", false
			}
			from = i
		}
	}
	if target < 0 {
		return "", false
	}
	if from >= 0 {
		lines[from] = setActive(lines[from], false)
	}
	lines[target] = setActive(lines[target], true)
	return strings.Join(lines, "\n"), true
}

// lineAttrs are the [...] attributes of a snapshot line, after its role
// and quoted name and before its ": text".
func lineAttrs(line string) []string {
	_, rest, ok := splitAttrs(line)
	if !ok {
		return nil
	}
	var out []string
	for strings.HasPrefix(rest, " [") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			break
		}
		out = append(out, rest[1:end+1])
		rest = rest[end+1:]
	}
	return out
}

// splitAttrs splits a line "  - role "name" [a] [b]: text" after its name:
// head "  - role "name"", rest " [a] [b]: text".
func splitAttrs(line string) (head, rest string, ok bool) {
	body := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(body, "- ") {
		return "", "", false
	}
	i := len(line) - len(body) + 2
	for i < len(line) && line[i] != ' ' && line[i] != ':' && line[i] != '"' {
		i++
	}
	if i+1 < len(line) && line[i] == ' ' && line[i+1] == '"' {
		// The name is JSON: skip it, escapes included.
		j := i + 2
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return "", "", false
		}
		i = j + 1
	}
	return line[:i], line[i:], true
}

// setActive puts [active] on a line, or takes it off.
func setActive(line string, on bool) string {
	head, rest, _ := splitAttrs(line)
	attrs := lineAttrs(line)
	n := 0
	for _, a := range attrs {
		n += 1 + len(a)
	}
	tail := rest[n:]
	var kept []string
	placed := false
	for _, a := range attrs {
		if a == "[active]" {
			continue
		}
		if on && !placed && !strings.HasPrefix(a, "[checked") && a != "[disabled]" && a != "[expanded]" {
			kept, placed = append(kept, "[active]"), true
		}
		kept = append(kept, a)
	}
	if on && !placed {
		kept = append(kept, "[active]")
	}
	out := head
	for _, a := range kept {
		out += " " + a
	}
	return out + tail
}
