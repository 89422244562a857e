// The compactor's tests, driving the built module (lib.rs, Rust) through
// the real sandbox: the same cases and assertions the Go version had. The
// parser's internals are tested in Rust beside them (make rust-test).
package snapcompact_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/plugintest"
	"github.com/wasmwright/wasmwright/internal/snapactive"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

var module = plugintest.Module{Dir: "plugins/snapcompact"}

// plugin builds and loads the module once for the package's tests.
func plugin(t *testing.T) *sandbox.Plugin {
	t.Helper()
	return module.Plugin(t)
}

// hook runs the compact hook as the host does: the snapshot raw
// (raw_snapshot) when raw, JSON otherwise.
func hook(t *testing.T, req *abi.HookRequest, raw bool) ([]byte, *abi.HookResponse) {
	t.Helper()
	out, resp, err := plugintest.Hook(t, plugin(t), req, raw)
	if err != nil {
		t.Fatalf("hook failed: %v", err)
	}
	return out, resp
}

// hookVia compacts snap with the call's args both ways (raw and JSON) and
// checks they agree.
func hookVia(t *testing.T, snap string, args string) string {
	t.Helper()
	req := abi.HookRequest{Role: abi.HookCompact, Tool: "browser_snapshot", Result: &abi.Result{Text: "ok", Snapshot: snap}}
	if args != "" {
		req.Args = json.RawMessage(args)
	}
	var got []string
	for _, raw := range []bool{true, false} {
		out, resp := hook(t, &req, raw)
		if resp.Result == nil || resp.Result.Text != "ok" {
			t.Fatalf("result lost: %s", out)
		}
		got = append(got, resp.Result.Snapshot)
	}
	if got[0] != got[1] {
		t.Fatalf("raw and JSON answers differ:\n%s\n---\n%s", got[0], got[1])
	}
	return got[0]
}

const page = `- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - generic [ref=e3]:
      - link [ref=e4] [cursor=pointer]:
        - /url: /
        - img "ACME" [ref=e5]
      - navigation "Main" [ref=e6]:
        - list [ref=e7]:
          - listitem [ref=e8]:
            - link "Products" [ref=e9] [cursor=pointer]:
              - /url: /products
          - listitem [ref=e10]:
            - link "About us" [ref=e11] [cursor=pointer]:
              - /url: /about
  - main [ref=e12]:
    - heading "Welcome to ACME" [level=1] [ref=e13]
    - paragraph [ref=e14]:
      - text: We make
      - strong [ref=e15]: anvils
      - text: and more.
    - 'link "Terms: read them" [ref=e16] [cursor=pointer]':
      - /url: /terms
      - text: "Terms: read them"
    - heading "Sign in" [level=2] [ref=e17]:
      - link "Sign in" [ref=e18] [cursor=pointer]:
        - /url: /login
    - textbox "Email" [ref=e19]:
      - /placeholder: you@example.com
    - textbox "Password" [ref=e20]
    - checkbox "Remember me" [checked] [ref=e21]
    - generic [ref=e22] [cursor=pointer]: Open menu
    - button "Go" [disabled] [ref=e23]
    - table [ref=e24]:
      - rowgroup [ref=e25]:
        - row "Item Price" [ref=e26]:
          - columnheader "Item" [ref=e27]
          - columnheader "Price" [ref=e28]
        - row "Anvil 10 $" [ref=e29]:
          - cell "Anvil" [ref=e30]
          - cell "10 $" [ref=e31]
  - contentinfo [ref=e32]:
    - paragraph [ref=e33]: "© 2026 ACME: all rights"`

func TestCompactGolden(t *testing.T) {
	want := `- banner:
  - link [ref=e4]: img "ACME"
  - navigation "Main":
    - link "Products" [ref=e9]
    - link "About us" [ref=e11]
- main:
  # Welcome to ACME
  We make anvils and more.
  - link "Terms: read them" [ref=e16]
  ## - link "Sign in" [ref=e18]
  - textbox "Email" [ref=e19] [placeholder="you@example.com"]
  - textbox "Password" [ref=e20]
  - checkbox "Remember me" [checked] [ref=e21]
  - generic [ref=e22] [cursor=pointer]: Open menu
  - button "Go" [disabled] [ref=e23]
  - table:
    - row: Item | Price
    - row: Anvil | 10 $
- contentinfo: © 2026 ACME: all rights`
	got := hookVia(t, page, "")
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if again := hookVia(t, page, ""); again != got {
		t.Fatal("not deterministic")
	}
}

func list(n int) string {
	var b strings.Builder
	b.WriteString("- main [ref=e1]:\n  - list [ref=e2]:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    - listitem [ref=e%d]:\n      - link \"Story number %d\" [ref=e%d] [cursor=pointer]:\n        - /url: /s/%d\n", 100+2*i, i, 101+2*i, i)
	}
	return b.String()
}

func TestFoldAndUnfold(t *testing.T) {
	got := hookVia(t, list(50), "")
	if !strings.Contains(got, "… 40 more items: browser_snapshot ref=e2") {
		t.Fatalf("no fold line:\n%s", got)
	}
	if !strings.Contains(got, `link "Story number 9" [ref=e119]`) || strings.Contains(got, "Story number 10") {
		t.Fatalf("fold kept the wrong items:\n%s", got)
	}
	// Unfolding: the scoped snapshot of the list (its root at the top)
	// shows every item again.
	scoped := strings.Join(strings.Split(list(50), "\n")[1:], "\n")
	scoped = regexp.MustCompile(`(?m)^  `).ReplaceAllString(scoped, "")
	un := hookVia(t, scoped, `{"ref":"e2"}`)
	for i := 0; i < 50; i++ {
		if !strings.Contains(un, fmt.Sprintf(`link "Story number %d" [ref=e%d]`, i, 101+2*i)) {
			t.Fatalf("item %d missing after unfolding:\n%s", i, un)
		}
	}
	if strings.Contains(un, "more items") {
		t.Fatalf("scope root folded again:\n%s", un)
	}
	// Short lists never fold.
	if s := hookVia(t, list(29), ""); strings.Contains(s, "more items") {
		t.Fatalf("a 29-item list folded:\n%s", s)
	}
}

func TestTextListsDoNotFold(t *testing.T) {
	var b strings.Builder
	b.WriteString("- list [ref=e1]:\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "  - listitem [ref=e%d]: line %d of a poem\n", i+2, i)
	}
	if s := hookVia(t, b.String(), ""); strings.Contains(s, "more items") || !strings.Contains(s, "line 59 of a poem") {
		t.Fatalf("text folded:\n%s", s)
	}
}

func TestEmptyAndNonSnapshotResults(t *testing.T) {
	req := abi.HookRequest{Role: abi.HookCompact, Tool: "browser_click", Result: &abi.Result{Text: "clicked"}}
	if out, _ := hook(t, &req, true); string(out) != "{}" {
		t.Fatalf("got %s", out)
	}
}

func TestSelfTestAndManifest(t *testing.T) {
	p := plugin(t)
	plugintest.SelfTest(t, p)
	m := p.Manifest()
	if m.Name != "snapcompact" || m.Version != "1.0.0" || len(m.Hooks) != 1 || m.Hooks[0] != abi.HookCompact || len(m.Capabilities) != 0 || !m.HasFeature(abi.FeatureRawSnapshot) {
		t.Fatalf("manifest: %+v", m)
	}
}

// Link URLs, dropped by default, come back on request: every one with
// links, or only the matching links (by URL or name) with link_filter.
func TestLinkURLsOnRequest(t *testing.T) {
	if got := hookVia(t, page, ""); strings.Contains(got, "/about") {
		t.Fatalf("a URL without links:\n%s", got)
	}
	got := hookVia(t, page, `{"links":true}`)
	for _, want := range []string{`link "About us" [ref=e11] [url=/about]`, `link [ref=e4] [url=/]: img "ACME"`, `link "Terms: read them" [ref=e16] [url=/terms]`} {
		if !strings.Contains(got, want) {
			t.Errorf("links: no %q in\n%s", want, got)
		}
	}
	if got := hookVia(t, page, `{"link_filter":"ABOUT"}`); got != `- link "About us" [ref=e11] [url=/about]` {
		t.Errorf("link_filter by URL:\n%s", got)
	}
	if got := hookVia(t, page, `{"link_filter":"acme"}`); got != `- link "ACME" [ref=e4] [url=/]` {
		t.Errorf("link_filter by the name of an image link:\n%s", got)
	}
	if got := hookVia(t, page, `{"link_filter":"pdf"}`); got != `No link's URL or name contains "pdf".` {
		t.Errorf("link_filter without a match:\n%s", got)
	}
}

// Plain elements an agent acts on keep their ref: marked ones (drag
// sources, drop targets, handlers, a focusable span, a heading that took
// the mark of the drop zone Playwright unwrapped) and the items of a pointer container (a
// hover menu: Playwright marks only the outermost pointer element). Plain
// text elsewhere stays text.
func TestPlainActionableElementsKeepRefs(t *testing.T) {
	got := hookVia(t, `- generic [ref=e1]:
  - navigation [ref=e2]:
    - generic [hoverable] [ref=e3]: Products
    - generic [ref=e4] [cursor=pointer]:
      - generic [ref=e5]: Laptops
      - generic [ref=e6]:
        - text: Phones
  - generic [draggable] [ref=e7]: Card A
  - generic [droppable] [ref=e8]: Drop here
  - generic [focusable] [ref=e12]: Account menu
  - heading "Done" [level=2] [droppable] [ref=e13]
  - generic [ref=e9]: Just text
  - generic [ref=e10]:
    - generic [ref=e11]: Nested text`, "")
	want := `- navigation:
  - generic [hoverable] [ref=e3]: Products
  - generic [ref=e4] [cursor=pointer]:
    - generic [ref=e5]: Laptops
    - generic [ref=e6]: Phones
- generic [draggable] [ref=e7]: Card A
- generic [droppable] [ref=e8]: Drop here
- generic [focusable] [ref=e12]: Account menu
- heading "Done" [level=2] [droppable] [ref=e13]
Just text Nested text`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// The compactor declares abi.FeatureActiveMark: for a snapshot that
// differs from one it compacted only in which element carries [active],
// the host moves the mark in the answer it holds (snapactive.Patch)
// instead of calling it. Wherever Patch answers, its answer is the
// compactor's own, for every element the focus can move to, in every
// view (plain, links, link_filter, scoped), on the pages here and on the
// saved corpus snapshots when they are built (build/snapshots).
func TestActiveMarkPatchIsTheCompaction(t *testing.T) {
	if !plugin(t).HasFeature(abi.FeatureActiveMark) {
		t.Fatal("snapcompact does not declare active_mark")
	}
	pages := []string{page, list(12), strings.Replace(page, `- checkbox "Remember me" [checked] [ref=e21]`, `- checkbox "Remember me" [checked] [disabled] [ref=e21]`, 1)}
	files, _ := filepath.Glob(filepath.Join(wasmbuild.Root(), "build", "snapshots", "*.json"))
	for _, f := range files[:min(len(files), 2)] {
		var s struct{ Snapshot string }
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &s) == nil && s.Snapshot != "" {
			pages = append(pages, s.Snapshot)
		}
	}
	patched, fellBack := 0, 0
	for _, pg := range pages {
		refs := regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(pg, -1)
		for _, args := range []string{"", `{"links":true}`, `{"link_filter":"s"}`, `{"ref":"e7"}`} {
			// The focus starts on an element whose line the compactor
			// keeps (a textbox or link), so the answer shows the mark.
			from := ""
			for _, m := range regexp.MustCompile(`- (?:textbox|link|button) [^\n]*\[ref=(e\d+)\]`).FindAllStringSubmatch(pg, 3) {
				if k := moveFocus(pg, m[1]); strings.Contains(compactRaw(t, k, args), "[active]") {
					from = m[1]
					break
				}
			}
			if from == "" {
				continue
			}
			was := moveFocus(pg, from)
			wasOut := compactRaw(t, was, args)
			for i, m := range refs {
				if len(refs) > 25 && i%(len(refs)/25) != 0 {
					continue // a sample of a large page's elements
				}
				now := moveFocus(pg, m[1])
				got, ok := snapactive.Patch(was, wasOut, now)
				if !ok {
					fellBack++
					continue
				}
				patched++
				if want := compactRaw(t, now, args); got != want {
					t.Fatalf("focus %s -> %s, args %s: the patched answer is not the compactor's:\n%s\n--- want\n%s", from, m[1], args, got, want)
				}
			}
		}
	}
	if patched < 20 {
		t.Fatalf("only %d focus moves patched (%d compacted): the check covers too little", patched, fellBack)
	}
	t.Logf("%d focus moves patched, %d compacted", patched, fellBack)
}

// compactRaw compacts snap with the call's args, as the host sends it.
func compactRaw(t *testing.T, snap, args string) string {
	t.Helper()
	req := abi.HookRequest{Role: abi.HookCompact, Tool: "browser_press", Result: &abi.Result{Snapshot: snap}}
	if args != "" {
		req.Args = json.RawMessage(args)
	}
	_, resp := hook(t, &req, true)
	if resp.Result == nil {
		t.Fatal("no result")
	}
	return resp.Result.Snapshot
}

// moveFocus is snap with [active] on the line of ref only, where
// Playwright puts it: after [checked], [disabled] and [expanded].
func moveFocus(snap, ref string) string {
	snap, _ = snapactive.Strip(snap)
	want := "[ref=" + ref + "]"
	lines := strings.Split(snap, "\n")
	for i, l := range lines {
		parts := snapactive.LineAttrs(l)
		if !slices.Contains(parts, want) {
			continue
		}
		head, rest, _ := snapactive.SplitAttrs(l)
		n := 0
		for _, a := range parts {
			n += 1 + len(a)
		}
		at := 0
		for at < len(parts) && (strings.HasPrefix(parts[at], "[checked") || parts[at] == "[disabled]" || parts[at] == "[expanded]") {
			at++
		}
		parts = slices.Insert(parts, at, "[active]")
		lines[i] = head + " " + strings.Join(parts, " ") + rest[n:]
		return strings.Join(lines, "\n")
	}
	return snap
}
