package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// begin acquires the caller's session, locked, and its current tab. The
// caller must unlock ss.mu. Playwright calls made for the call stop waiting
// when ctx ends. A tab left stuck by an earlier call is replaced first.
func (s *sessions) begin(ctx context.Context, c *hostfuncs.Caller, create bool) (*session, *tab, error) {
	ss, err := s.acquire(ctx, c, create)
	if err != nil {
		return nil, nil, err
	}
	t := ss.current()
	if t != nil && ss.suspect.Load() {
		if t, err = s.unstick(ss, t); err != nil {
			// The session was reset (and unlocked): a navigate starts afresh.
			if !create {
				return nil, nil, err
			}
			if ss, err = s.acquire(ctx, c, true); err != nil {
				return nil, nil, err
			}
			t = ss.current()
		}
	}
	if t != nil {
		t.probed = nil // probes are good for one call
	}
	if t == nil {
		if !create {
			ss.mu.Unlock()
			return nil, nil, abi.Errorf(abi.CodeNoSession, "every tab of this session is closed: call browser_navigate (or browser_tabs with action open) first")
		}
		p, _, err := await(ss, 0, false, ss.bctx.NewPage)
		if err != nil {
			err = s.mapErr(ss, err, "opening a tab")
			ss.mu.Unlock()
			return nil, nil, err
		}
		t = ss.attach(p)
		ss.evMu.Lock()
		ss.newTabs = nil
		ss.cur = ss.indexLocked(t)
		ss.evMu.Unlock()
	}
	return ss, t, nil
}

// pageTab is begin for calls that touch the page: a session must exist and
// no dialog may be open.
func (s *sessions) pageTab(ctx context.Context, c *hostfuncs.Caller) (*session, *tab, error) {
	ss, t, err := s.begin(ctx, c, false)
	if err != nil {
		return nil, nil, err
	}
	if d := openDialog(ss, t); d != nil {
		ss.mu.Unlock()
		return nil, nil, errDialogOpen(d)
	}
	return ss, t, nil
}

func errDialogOpen(d *abi.BrowserDialog) error {
	return abi.Errorf(abi.CodeExecutionFailed, "a %s dialog is open (%q) and blocks the page: answer it with browser_dialog (accept or dismiss) first", d.Type, capString(d.Message, 200)).With("dialog", d.Type)
}

// openDialog returns the dialog blocking t, or any tab of ss.
func openDialog(ss *session, t *tab) *abi.BrowserDialog {
	if d := t.dialog.Load(); d != nil {
		return dialogInfo(*d)
	}
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	for _, x := range ss.tabs {
		if d := x.dialog.Load(); d != nil {
			return dialogInfo(*d)
		}
	}
	return nil
}

func dialogInfo(d pw.Dialog) *abi.BrowserDialog {
	return &abi.BrowserDialog{Type: d.Type(), Message: d.Message(), DefaultValue: d.DefaultValue()}
}

// state describes the session after a call and hands over its pending
// warnings.
func (s *pages) state(ss *session, t *tab, allTabs bool) abi.BrowserState {
	return s.stateWith(ss, t, allTabs, nil)
}

// stateWith is state with the current tab's title already read (title
// non-nil: titleSoon's result, or the title the page facts saw).
func (s *pages) stateWith(ss *session, t *tab, allTabs bool, title func() string) abi.BrowserState {
	st := abi.BrowserState{Tab: max(ss.tabIndex(t), 0), URL: t.page.URL()}
	st.Dialog = openDialog(ss, t)
	if st.Dialog == nil && !t.page.IsClosed() {
		if title != nil {
			st.Title = title()
		} else {
			st.Title = pageTitle(t.page)
		}
	}
	ss.evMu.Lock()
	tabs := append([]*tab(nil), ss.tabs...)
	fresh := ss.newTabs
	ss.newTabs = nil
	st.Warnings, ss.warnings = ss.warnings, nil
	ss.evMu.Unlock()
	if w := ss.popupWarning(); w != "" {
		st.Warnings = append(st.Warnings, w)
	}
	if len(tabs) > 1 || allTabs {
		// The other tabs' titles are read together, under one deadline: a
		// stuck tab costs the call a second, not a second per tab.
		titles := make([]func() string, len(tabs))
		for i, x := range tabs {
			if x != t && x.dialog.Load() == nil && !x.page.IsClosed() {
				titles[i] = titleSoon(x.page)
			}
		}
		deadline := time.Now().Add(time.Second)
		for i, x := range tabs {
			bt := abi.BrowserTab{Index: i, URL: x.page.URL(), Current: x == t}
			if x == t {
				bt.Title = st.Title
			} else if titles[i] != nil {
				bt.Title = titleBy(titles[i], deadline)
			}
			st.Tabs = append(st.Tabs, bt)
		}
	}
	for _, x := range fresh {
		for i, y := range tabs {
			if x == y {
				st.NewTabs = append(st.NewTabs, abi.BrowserTab{Index: i, URL: x.page.URL()})
			}
		}
	}
	return st
}

// pageTitle reads the title without letting a busy page stall the call.
func pageTitle(p pw.Page) string {
	ch := make(chan string, 1)
	go func() {
		t, _ := p.Title()
		ch <- t
	}()
	select {
	case t := <-ch:
		return t
	case <-time.After(time.Second):
		return ""
	}
}

// titleSoon starts reading the title now, so the round trip overlaps the
// snapshot; the returned func waits for it as pageTitle would.
func titleSoon(p pw.Page) func() string {
	ch := make(chan string, 1)
	go func() {
		t, _ := p.Title()
		ch <- t
	}()
	return func() string {
		select {
		case t := <-ch:
			return t
		case <-time.After(time.Second):
			return ""
		}
	}
}

// titleBy is a titleSoon result, or "" once deadline has passed.
func titleBy(title func() string, deadline time.Time) string {
	ch := make(chan string, 1)
	go func() { ch <- title() }()
	select {
	case t := <-ch:
		return t
	case <-time.After(time.Until(deadline)):
		return ""
	}
}

// race runs fn, but returns early when a dialog opens: the page is then
// blocked and fn would only finish once someone answers it. The dialog is
// reported through State.Dialog; fn's late result is dropped. Like every
// Playwright call of a host function it is bounded (await): by the call's
// context and the session's call budget.
func race[T any](ss *session, fn func() (T, error)) (T, bool, error) {
	return await(ss, 0, true, fn)
}

func race0(ss *session, fn func() error) (bool, error) {
	_, d, err := race(ss, func() (struct{}, error) { return struct{}{}, fn() })
	return d, err
}

var (
	refRe     = regexp.MustCompile(`^(?:f\d+)?e\d+$`)
	refInSnap = regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`)
	// A textbox line with a value: `- textbox "Password" [ref=e3]: s3cret`.
	textboxValue = regexp.MustCompile(`(?m)^(\s*- textbox\b[^\n]*\[ref=((?:f\d+)?e\d+)\][^:\n]*): (.+)$`)
)

// normRef accepts "e5", "@e5", "ref=e5" and frame refs "f1e4". Anything
// else (a CSS selector, a role name) is refused.
func normRef(ref string) (string, error) {
	r := strings.TrimSpace(ref)
	r = strings.TrimPrefix(r, "@")
	r = strings.TrimPrefix(r, "ref=")
	r = strings.Trim(r, "[]")
	r = strings.TrimPrefix(r, "ref=")
	if refRe.MatchString(r) {
		return r, nil
	}
	if r == "" {
		return "", abi.Errorf(abi.CodeInputInvalid, "no element given: pass a ref from browser_snapshot (like e5)")
	}
	return "", abi.Errorf(abi.CodeInputInvalid, "%q is not a ref: CSS selectors and text are not accepted, use a ref from browser_snapshot (like e5)", capString(ref, 80))
}

// locate resolves a ref of the latest snapshot of t. A ref that is not in
// that snapshot, or whose element has left the page, fails at once with
// stale_ref: Playwright itself would wait for it until the timeout.
func (s *pages) locate(ss *session, t *tab, ref string) (pw.Locator, string, error) {
	r, err := normRef(ref)
	if err != nil {
		return nil, "", err
	}
	if !t.refs[r] {
		if len(t.refs) == 0 {
			return nil, r, abi.Errorf(abi.CodeStaleRef, "ref %s: this tab has no snapshot yet: take a new snapshot (browser_snapshot) and use its refs", r)
		}
		return nil, r, abi.Errorf(abi.CodeStaleRef, "ref %s is not in the latest snapshot of this tab: take a new snapshot (browser_snapshot) and use its refs", r)
	}
	loc := t.page.GetByRef(r)
	n, _, err := await(ss, s.cfg.ActionTimeout.D(), false, loc.Count)
	if err != nil {
		return nil, r, s.sessions.mapErr(ss, err, "finding "+r)
	}
	if n == 0 {
		return nil, r, abi.Errorf(abi.CodeStaleRef, "ref %s is no longer on the page (the page changed or navigated since the snapshot): take a new snapshot and use its refs", r)
	}
	return loc, r, nil
}

// locateToAct is locate for an element about to be acted on: the probe
// ready needs is read while locate counts, so the two round trips overlap.
// (Locator.EvaluateAll does not resolve refs, so they cannot be one.)
func (s *pages) locateToAct(ss *session, t *tab, ref string) (pw.Locator, string, error) {
	r, err := normRef(ref)
	if err != nil || !t.refs[r] {
		return s.locate(ss, t, ref)
	}
	type res struct {
		p  probe
		ok bool
	}
	ch := make(chan res, 1)
	early := t.page.GetByRef(r)
	go func() {
		p, ok := probeOf(early)
		ch <- res{p, ok}
	}()
	loc, r, err := s.locate(ss, t, ref)
	if err != nil {
		return loc, r, err // the probe times out on its own
	}
	if t.probed == nil {
		t.probed = map[string]func() (probe, bool){}
	}
	t.probed[r] = func() (probe, bool) {
		select {
		case x := <-ch:
			return x.p, x.ok
		case <-time.After(2 * time.Second): // the probe's own timeout is 1s
			return probe{}, false
		}
	}
	return loc, r, nil
}

// probeJS reads in one round trip what ready and isPassword need, with
// Playwright's own rules: visible = a non-empty box and not
// visibility:hidden; disabled = :disabled or inside aria-disabled;
// editable = a text control or contenteditable that is not read-only.
const probeJS = `e => {
	const r = e.getBoundingClientRect();
	const visible = r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
	const disabled = (e.matches && e.matches(":disabled")) || !!(e.closest && e.closest("[aria-disabled=true]"));
	const text = (e instanceof HTMLInputElement && !["checkbox","radio","button","submit","reset","image","file","range","color","hidden"].includes(e.type))
		|| e instanceof HTMLTextAreaElement || e.isContentEditable || ["textbox","searchbox","combobox","spinbutton"].includes(e.getAttribute && e.getAttribute("role"));
	const readonly = !!e.readOnly || (e.getAttribute && e.getAttribute("aria-readonly") === "true");
	const link = e.closest && e.closest("a[href],area[href]");
	const submit = !!e.form && (e instanceof HTMLButtonElement ? e.type === "submit" : e instanceof HTMLInputElement && ["submit","image"].includes(e.type));
	const target = ((link && link.target) || (submit && (e.formTarget || e.form.target)) || "").toLowerCase();
	const frame = target !== "" && [...document.querySelectorAll("iframe[name],frame[name]")].some(f => f.name.toLowerCase() === target);
	return {visible, enabled: !disabled, editable: text && !disabled && !readonly,
		password: e instanceof HTMLInputElement && e.type.toLowerCase() === "password",
		opensTab: target !== "" && !frame && !["_self","_parent","_top"].includes(target),
		navigates: !!link || submit};
}`

type probe struct {
	Visible, Enabled, Editable, Password bool
	// OpensTab: a link or form whose target opens another browsing context
	// (not a frame of the page). Navigates: a link or a form's submit
	// control, which a modifier or middle click may open in a tab.
	OpensTab, Navigates bool
}

func probeFrom(m map[string]any) probe {
	b := func(k string) bool { x, _ := m[k].(bool); return x }
	return probe{Visible: b("visible"), Enabled: b("enabled"), Editable: b("editable"), Password: b("password"), OpensTab: b("opensTab"), Navigates: b("navigates")}
}

// probeOf reads an element's state; ok is false when it could not.
func probeOf(loc pw.Locator) (probe, bool) {
	v, err := loc.Evaluate(probeJS, nil, pw.LocatorEvaluateOptions{Timeout: pw.Float(1000)})
	m, isMap := v.(map[string]any)
	if err != nil || !isMap {
		return probe{}, false
	}
	return probeFrom(m), true
}

// ready fails fast with not_interactable where Playwright would wait out
// the action timeout. It returns the probe (Password says whether the
// element is a password input). The probe locateToAct started in this
// call is used once; otherwise the element is probed now.
func (t *tab) ready(loc pw.Locator, ref string, enabled, editable bool) (probe, error) {
	var p probe
	var ok bool
	if early := t.probed[ref]; early != nil {
		delete(t.probed, ref)
		p, ok = early()
	} else {
		p, ok = probeOf(loc)
	}
	if !ok {
		return p, nil // let Playwright decide, with its timeout
	}
	if !p.Visible {
		return p, abi.Errorf(abi.CodeNotInteractable, "element %s is not visible (hidden, collapsed or zero-sized): open the menu or section that shows it, or take a new snapshot", ref)
	}
	if enabled && !p.Enabled {
		return p, abi.Errorf(abi.CodeNotInteractable, "element %s is disabled: complete what it depends on first, then take a new snapshot", ref)
	}
	if editable && !p.Editable {
		return p, abi.Errorf(abi.CodeNotInteractable, "element %s is read-only or not a text field: pick an editable textbox from the snapshot", ref)
	}
	return p, nil
}

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
	pageDepth := depth
	if scope != "" {
		var err error
		if _, scope, err = s.locate(ss, t, scope); err != nil {
			return "", err
		}
		pageDepth = 0 // the depth applies to the cut
	}
	snap, dialog, err := race(ss, func() (string, error) { return s.aria(t, pageDepth) })
	if dialog {
		return "", nil
	}
	if err != nil {
		return "", s.sessions.mapErr(ss, err, "taking a snapshot")
	}
	s.keepRefs(t, snap)
	if scope != "" {
		sub, ok := subtree(snap, scope, depth)
		if !ok {
			return "", abi.Errorf(abi.CodeStaleRef, "ref %s is no longer shown on the page (hidden or removed since the snapshot): take a new snapshot and use its refs", scope)
		}
		snap = sub
	}
	return s.concealer.redact(t, snap), nil
}

// aria takes the AI-mode ARIA snapshot of the page, with the marks of
// plain elements that take input (marks.go), read alongside. Boxes, which
// are only how a mark finds its line, cost a large page's snapshot up to
// twice its time: once a snapshot of a document found no marked elements,
// the next snapshots of that document are taken without them. If such a
// page gained marked elements meanwhile, the snapshot is taken again with
// boxes, so marks are never lost. (Reading the marks first instead costs
// every snapshot one more round trip to the page.)
func (s *pages) aria(t *tab, depth int) (string, error) {
	wait := s.cfg.ActionTimeout.D()
	doc := t.navSeq.Load() + 1
	unmarked := t.unmarked.Load() == doc
	found := findMarks(t.page)
	snap, err := takeSnapshot(t, snapshotOptions(depth, !unmarked, wait))
	marks := found(wait)
	if err != nil {
		return "", err
	}
	if len(marks) == 0 {
		t.unmarked.Store(doc)
		return markLines(snap, nil), nil
	}
	t.unmarked.Store(0)
	if unmarked {
		if snap, err = takeSnapshot(t, snapshotOptions(depth, true, wait)); err != nil {
			return "", err
		}
	}
	return markLines(snap, marks), nil
}

func takeSnapshot(t *tab, o pw.PageAriaSnapshotOptions) (string, error) {
	if snapshotTaken != nil {
		snapshotTaken(o)
	}
	return t.page.AriaSnapshot(o)
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

// redact replaces the value of every password input in a snapshot:
// Playwright prints a filled password as the textbox's value. Each textbox
// line that carries a value is checked, all at once (a round trip per
// field, one after another, cost a form-heavy page tens of milliseconds);
// when a check fails the value is redacted anyway. Lines are scanned by
// hand (a regexp over a large snapshot cost tens of milliseconds);
// textboxValue is the same rule.
func (s *concealer) redact(t *tab, snap string) string {
	if !strings.Contains(snap, "- textbox") {
		return snap
	}
	type field struct {
		start, end int // the value's line: snap[start:end]
		head, ref  string
	}
	var fields []field
	for pos := 0; pos < len(snap); {
		end := strings.IndexByte(snap[pos:], '\n')
		if end < 0 {
			end = len(snap)
		} else {
			end += pos
		}
		if head, ref, ok := textboxLine(snap[pos:end]); ok {
			fields = append(fields, field{pos, end, head, ref})
		}
		pos = end + 1
	}
	if len(fields) == 0 {
		return snap
	}
	// A page that stops answering must not cost a second per textbox: past
	// the deadline every remaining value is redacted without asking.
	deadline := time.Now().Add(s.cfg.ActionTimeout.D())
	plain := make([]bool, len(fields))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 16)
	for i, f := range fields {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if !time.Now().Before(deadline) {
				return
			}
			v, err := t.page.GetByRef(f.ref).Evaluate(`e => e instanceof HTMLInputElement && e.type.toLowerCase() === "password"`, nil,
				pw.LocatorEvaluateOptions{Timeout: pw.Float(1000)})
			isPwd, ok := v.(bool)
			plain[i] = err == nil && ok && !isPwd
		}()
	}
	wg.Wait()
	var b strings.Builder
	last := 0 // snap[:last] is written to b
	for i, f := range fields {
		if plain[i] {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(snap))
		}
		b.WriteString(snap[last:f.start])
		b.WriteString(f.head)
		b.WriteString(": " + abi.RedactedValue)
		last = f.end
	}
	if last == 0 {
		return snap
	}
	b.WriteString(snap[last:])
	return b.String()
}

// textboxLine matches one snapshot line against textboxValue: a textbox
// with a ref and a value. head is the line up to the value's ": ".
func textboxLine(line string) (head, ref string, ok bool) {
	rest := strings.TrimLeft(line, " \t\f\v\r")
	if !strings.HasPrefix(rest, "- textbox") {
		return "", "", false
	}
	if after := rest[len("- textbox"):]; after != "" && isWordByte(after[0]) {
		return "", "", false
	}
	// The regexp's greedy prefix takes the last [ref=...] that is followed
	// by a colon-free stretch, ": " and at least one character.
	for i := strings.LastIndex(line, "[ref="); i >= 0; i = strings.LastIndex(line[:i], "[ref=") {
		r, n := refAt(line[i+len("[ref="):])
		if n == 0 {
			continue
		}
		tail := line[i+len("[ref=")+n:]
		if !strings.HasPrefix(tail, "]") {
			continue
		}
		tail = tail[1:]
		c := strings.IndexByte(tail, ':')
		if c < 0 || !strings.HasPrefix(tail[c:], ": ") || len(tail) <= c+2 {
			continue
		}
		return line[:len(line)-len(tail)+c], r, true
	}
	return "", "", false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
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

// factsJS reads the whole document for the detect hook, up to max UTF-16
// units each (the host then caps the bytes): a wall's marker may sit
// anywhere in it. With max 0 it reads only the title: without a
// detector, nothing reads the rest (innerText lays the page out, and
// both cost a large page tens of milliseconds).
const factsJS = `(max) => ({
	title: document.title,
	text: max && document.body ? document.body.innerText.slice(0, max) : "",
	html: max && document.documentElement ? document.documentElement.outerHTML.slice(0, max) : ""
})`

// facts collects what the detect hook reads about the loaded document.
func (s *pages) facts(ss *session, t *tab, resp pw.Response) *abi.Page {
	pg, _, _, _ := s.pageFacts(ss, t, resp, false)
	return pg
}

// pageFacts collects the page facts and, when withSnap is set, the
// snapshot: the two reads are in flight together, in one race against a
// dialog. title reports the title the facts saw (nil when they failed). A
// dialog leaves the snapshot empty, as snapshot does.
func (s *pages) pageFacts(ss *session, t *tab, resp pw.Response, withSnap bool) (pg *abi.Page, snap string, title func() string, err error) {
	pg = &abi.Page{URL: t.page.URL()}
	if resp != nil {
		pg.Status, pg.Headers = resp.Status(), resp.Headers()
	} else if d := t.doc.Load(); d != nil {
		pg.Status, pg.Headers = d.status, d.headers
	}
	max := s.cfg.DetectMaxMB << 20
	if c := hostfuncs.CallerFrom(ss.ctx); c != nil && c.NoDetector {
		max = 0
	}
	type reads struct {
		v    any
		verr error
		snap string
		serr error
	}
	r, dialog, _ := race(ss, func() (reads, error) {
		var r reads
		if !withSnap {
			r.v, r.verr = t.page.Evaluate(factsJS, max)
			return r, nil
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.v, r.verr = t.page.Evaluate(factsJS, max)
		}()
		r.snap, r.serr = s.aria(t, 0)
		<-done
		return r, nil
	})
	if dialog {
		return pg, "", nil, nil
	}
	if m, ok := r.v.(map[string]any); ok && r.verr == nil {
		pg.Title, _ = m["title"].(string)
		text, _ := m["text"].(string)
		html, _ := m["html"].(string)
		pg.Text, pg.HTML = capString(text, max), capString(html, max)
		seen := pg.Title
		title = func() string { return seen }
	}
	if withSnap {
		if r.serr != nil {
			return pg, "", title, s.sessions.mapErr(ss, r.serr, "taking a snapshot")
		}
		s.keepRefs(t, r.snap)
		snap = s.concealer.redact(t, r.snap)
	}
	return pg, snap, title, nil
}

// checkURL accepts only http and https: file:, data:, javascript: and the
// rest are refused before anything starts.
func checkURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q is not a URL: %v", capString(raw, 200), err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return "", abi.Errorf(abi.CodeInputInvalid, "%q has no scheme: write the full URL, e.g. https://%s", capString(raw, 200), capString(raw, 200))
	default:
		return "", abi.Errorf(abi.CodeRefused, "%s: URLs are refused: only http and https pages can be opened", u.Scheme).With("scheme", u.Scheme)
	}
	if u.Host == "" {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q has no host", capString(raw, 200))
	}
	return u.String(), nil
}

// checkOpenURL is checkURL for a URL about to be loaded, then
// Options.CheckURL (the network service's check: credentials, ports,
// hosts), so such a URL is refused before anything starts.
func (s *pages) checkOpenURL(raw string) (string, error) {
	u, err := checkURL(raw)
	if err != nil || s.opts.CheckURL == nil {
		return u, err
	}
	if err := s.opts.CheckURL(u); err != nil {
		var ae *abi.Error
		if errors.As(err, &ae) {
			return "", ae
		}
		return "", abi.Errorf(abi.CodeRefused, "%v", err)
	}
	return u, nil
}

// mapErr turns a Playwright error into a coded one: crashes, timeouts and
// elements that cannot be acted on get their own codes.
func (s *sessions) mapErr(ss *session, err error, what string) error {
	if err == nil {
		return nil
	}
	var st *stalled
	if errors.As(err, &st) {
		return abi.Errorf(st.code, "%s: %s", what, st.msg)
	}
	var ae *abi.Error
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	if gone(msg) || errors.Is(err, pw.ErrTargetClosed) || ss.crashed.Load() {
		// The crash event, or the exit of the driver, may trail the failed
		// call by a moment.
		for i := 0; i < 20 && !ss.crashed.Load() && !ss.drv.exited() && (ss.browser == nil || ss.browser.IsConnected()); i++ {
			time.Sleep(25 * time.Millisecond)
		}
		if ss.drv.exited() {
			// The service drops every session of the dead driver (checkDriver,
			// watchDriver); the next call starts a new driver.
			ss.markCrashed(driverExitedWhy)
			return abi.Errorf(abi.CodeBrowserCrashed, "the browser driver exited while %s; the session was reset and its tabs are gone: call browser_navigate again to start a fresh browser", what)
		}
		if ss.crashed.Load() || (ss.browser != nil && !ss.browser.IsConnected()) || strings.Contains(msg, "crash") {
			ss.markCrashed("the browser went away during " + what)
			s.dropCrashed(ss)
			return abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed while %s (%s); the session was reset: call browser_navigate to start a fresh session", what, ss.crashReason())
		}
		return abi.Errorf(abi.CodeExecutionFailed, "%s: the tab was closed", what)
	}
	line := cleanMsg(msg)
	if errors.Is(err, pw.ErrTimeout) {
		for _, w := range []string{"not visible", "not enabled", "disabled", "not editable", "readonly", "not stable", "intercepts pointer events", "outside of the viewport", "not attached", "detached"} {
			if strings.Contains(msg, w) {
				return abi.Errorf(abi.CodeNotInteractable, "%s: the element never became actionable (%s): it may be covered, hidden or disabled; take a new snapshot", what, w)
			}
		}
		ss.suspect.Store(true)
		return abi.Errorf(abi.CodeTimeout, "%s did not finish within %s: %s", what, s.cfg.ActionTimeout.D(), line)
	}
	for _, w := range []string{"is not an <input>", "Not a checkbox or radio", "Element is not a <select>", "Cannot type text into", "Malformed value", "not a <select>"} {
		if strings.Contains(msg, w) {
			return abi.Errorf(abi.CodeNotInteractable, "%s: %s", what, line)
		}
	}
	return abi.Errorf(abi.CodeExecutionFailed, "%s: %s", what, line)
}

func gone(msg string) bool {
	for _, w := range []string{"Target crashed", "has been closed", "Target closed", "Browser closed", "browser has disconnected", "Connection closed", "crashed"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// cleanMsg keeps the part of a Playwright error an agent can use.
func cleanMsg(msg string) string {
	l := firstLine(msg)
	for _, p := range []string{"playwright: ", "timeout: ", "Error: ", "TimeoutError: "} {
		l = strings.ReplaceAll(l, p, "")
	}
	return l
}

// dropCrashed removes a crashed session from the table (the caller holds
// its lock) so the next call starts a fresh one and is told why.
func (s *sessions) dropCrashed(ss *session) {
	why := ss.crashReason()
	ss.closing.Store(true)
	s.mu.Lock()
	if s.byKey[ss.key] == ss {
		delete(s.byKey, ss.key)
	}
	s.crashed[ss.key] = why
	s.mu.Unlock()
	go func() {
		if ss.bctx != nil {
			ss.bctx.Close()
		}
		if ss.profile != nil {
			unlockProfile(ss.profile)
		}
		s.notifyClosed(ss.key)
	}()
}

func ms(d time.Duration) *float64 { return pw.Float(float64(d.Milliseconds())) }

func fmtBox(x, y, w, h float64) string { return fmt.Sprintf("%.0f,%.0f,%.0f,%.0f", x, y, w, h) }
