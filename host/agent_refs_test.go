package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// What an agent meets: the first-party pipeline (browser tools, the
// compactor, the masker) over real Chromium and loopback pages.

// agent is a host with the first-party pipeline, driven as an agent would.
type agent struct {
	t   *testing.T
	h   *Host
	dir string
}

// newAgent starts a host whose personality "default" has the browser
// tools, snapcompact and secretmask, reaching only site; extra is TOML
// appended to the config (more keys of [personalities.default] first,
// then other tables).
func newAgent(t *testing.T, site *httptest.Server, extra string) *agent {
	t.Helper()
	return newAgentWith(t, site, extra, Options{})
}

// newAgentWith is newAgent with the host's options.
func newAgentWith(t *testing.T, site *httptest.Server, extra string, opts Options) *agent {
	t.Helper()
	needBrowser(t)
	f := newFixture(t, map[string]string{"browser": "plugins/browser", "snapcompact": "plugins/snapcompact", "secretmask": "plugins/secretmask"})
	h := f.browserHost(t, f.browserConfig("", "", fmt.Sprintf(`[plugins.browser]
[plugins.snapcompact]
[plugins.secretmask]

[personalities.default]
plugins = ["browser", "snapcompact", "secretmask"]
tools = ["*"]
grants = ["browser.read", "browser.act", "events", "secrets.mask", "vault.fill"]
hooks = { compact = "snapcompact", mask = "secretmask" }
network = { allowed_hosts = [%q] }
%s
`, strings.TrimPrefix(site.URL, "http://"), extra)), opts)
	return &agent{t: t, h: h, dir: f.dir}
}

// try calls tool as personality (the default when "").
func (a *agent) try(personality, tool string, args any) (*abi.Result, *abi.Error) {
	a.t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
	defer cancel()
	res, err := a.h.Call(ctx, Request{Personality: personality, Tool: tool, Args: raw})
	if err != nil {
		return res, abi.AsError(err)
	}
	return res, nil
}

// call calls tool as the default personality and fails the test on an error.
func (a *agent) call(tool string, args any) *abi.Result {
	a.t.Helper()
	res, e := a.try("", tool, args)
	if e != nil {
		a.t.Fatalf("%s %v: %v", tool, args, e)
	}
	return res
}

// ref finds the ref of the first element line of snap matching pattern (a
// regexp over the line after its "- ").
func (a *agent) ref(snap, pattern string) string {
	a.t.Helper()
	line := regexp.MustCompile(`(?m)^\s*(?:#+ )?- ` + pattern + `.*$`).FindString(snap)
	m := regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`).FindStringSubmatch(line)
	if m == nil {
		a.t.Fatalf("no element %q in:\n%s", pattern, snap)
	}
	return m[1]
}

// storeLogins puts credentials in the agent's vault, usable unattended by
// the default personality on site.
func (a *agent) storeLogins(site *httptest.Server, creds ...vault.Credential) {
	a.t.Helper()
	store := vault.Open(vault.Options{File: filepath.Join(a.dir, "vault.age")})
	for _, c := range creds {
		c.Policy.Origins, c.Policy.Personalities, c.Policy.Unattended = []string{site.URL}, []string{"default"}, true
		if err := store.Put(c); err != nil {
			a.t.Fatal(err)
		}
	}
}

// serve is a loopback site of fixed pages, path -> HTML body.
func serve(t *testing.T, pages map[string]string) *httptest.Server {
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestRefsStableAcrossScopedSnapshots: unfolding a folded list (a scoped
// browser_snapshot) leaves every ref of the unchanged page valid, and each
// element keeps its ref in full and scoped snapshots alike.
func TestRefsStableAcrossScopedSnapshots(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	var items strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&items, `<li><a href="/item/%d">Item %d</a></li>`, i, i)
	}
	site := serve(t, map[string]string{"/list": `<title>List</title>
		<button onclick="document.getElementById('out').textContent='saved'">Save</button><p id="out">not yet</p>
		<ul>` + items.String() + `</ul>`})
	a := newAgent(t, site, "")

	full := a.call("browser_navigate", map[string]any{"url": site.URL + "/list"}).Snapshot
	save, first := a.ref(full, `button "Save"`), a.ref(full, `link "Item 1"`)
	m := regexp.MustCompile(`… \d+ more items: browser_snapshot ref=(e\d+)`).FindStringSubmatch(full)
	if m == nil {
		t.Fatalf("the list is not folded:\n%s", full)
	}
	scoped := a.call("browser_snapshot", map[string]any{"ref": m[1]}).Snapshot
	if got := a.ref(scoped, `link "Item 1"`); got != first {
		t.Errorf("Item 1 is %s in the full snapshot, %s in the scoped one", first, got)
	}
	last := a.ref(scoped, `link "Item 40"`)

	// Refs of the full snapshot outside the unfolded list still act.
	if res := a.call("browser_click", map[string]any{"ref": save}); !strings.Contains(res.SnapshotDiff, "saved") {
		t.Fatalf("the click on %s did not act:\n%s", save, res.SnapshotDiff)
	}
	// And refs of the scoped one, after another scoped snapshot.
	a.call("browser_snapshot", map[string]any{"ref": m[1], "depth": 1})
	if res := a.call("browser_hover", map[string]any{"ref": last}); res == nil {
		t.Fatal("no result")
	}
	again := a.call("browser_snapshot", map[string]any{"snapshot": "full"}).Snapshot
	if a.ref(again, `button "Save"`) != save || a.ref(again, `link "Item 1"`) != first {
		t.Errorf("refs changed on an unchanged page: %s, %s became\n%s", save, first, again)
	}
}

// TestFilledUsernameShownPasswordMasked: after a credential fill, the page
// greeting the user by name is readable in the snapshot, and the password
// never is; a credential whose policy says mask_username has its username
// masked too.
func TestFilledUsernameShownPasswordMasked(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/welcome": `<title>Sign in</title>
		<label>Username <input id="u" autocomplete="username"></label>
		<label>Password <input type="password" id="p"></label><p id="hi">Who are you?</p>
		<script>u.addEventListener("input", () => { hi.textContent = "Welcome back, " + u.value + "!"; });</script>`})
	a := newAgent(t, site, "")
	a.storeLogins(site,
		vault.Credential{Name: "plain", Username: "ada-lovelace", Password: "plain-Pa55-word"},
		vault.Credential{Name: "masked", Username: "grace-hopper", Password: "masked-Pa55-word", Policy: vault.Policy{MaskUsername: true}})
	for _, c := range []struct{ cred, user, pass, greeting string }{
		{"plain", "ada-lovelace", "plain-Pa55-word", "Welcome back, ada-lovelace!"},
		{"masked", "grace-hopper", "masked-Pa55-word", "Welcome back, ••••••!"},
	} {
		snap := a.call("browser_navigate", map[string]any{"url": site.URL + "/welcome"}).Snapshot
		user, pass := a.ref(snap, `textbox "Username"`), a.ref(snap, `textbox "Password"`)
		a.call("browser_fill_credential", map[string]any{"credential": c.cred, "username_ref": user, "password_ref": pass})
		res := a.call("browser_snapshot", map[string]any{"snapshot": "full"})
		out, _ := json.Marshal(res)
		if !strings.Contains(res.Snapshot, c.greeting) {
			t.Errorf("%s: the greeting is not %q:\n%s", c.cred, c.greeting, res.Snapshot)
		}
		if strings.Contains(string(out), c.pass) {
			t.Errorf("%s: the password is in the result: %s", c.cred, out)
		}
		if c.cred == "masked" && strings.Contains(string(out), c.user) {
			t.Errorf("%s: the username is in the result although the policy masks it: %s", c.cred, out)
		}
	}
}

// TestLinkURLsAndFullSnapshot: on a page of many links, the URL of a
// given link is one call away (link_filter, or links on the whole page);
// a full, uncompacted snapshot is refused to a personality without
// full_snapshots and given to one with it.
func TestLinkURLsAndFullSnapshot(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	var links strings.Builder
	for i := 1; i <= 300; i++ {
		if i == 170 {
			links.WriteString(`<li><a href="/files/annual-report-2025.pdf">Annual report</a></li>`)
		}
		fmt.Fprintf(&links, `<li><a href="/news/%d">News item %d</a></li>`, i, i)
	}
	site := serve(t, map[string]string{"/links": `<title>Links</title><a href="/about">About</a><ul>` + links.String() + `</ul>`})
	a := newAgent(t, site, `
[personalities.wide]
plugins = ["browser", "snapcompact", "secretmask"]
tools = ["*"]
grants = ["browser.read", "browser.act", "events", "secrets.mask"]
hooks = { compact = "snapcompact", mask = "secretmask" }
network = { allowed_hosts = ["`+strings.TrimPrefix(site.URL, "http://")+`"] }
full_snapshots = true
`)
	compact := a.call("browser_navigate", map[string]any{"url": site.URL + "/links"}).Snapshot
	if strings.Contains(compact, "/about") || strings.Contains(compact, "Annual report") {
		t.Fatalf("the compacted snapshot shows link URLs or the folded link:\n%s", compact)
	}
	pdf := a.call("browser_snapshot", map[string]any{"link_filter": "PDF"}).Snapshot
	if !regexp.MustCompile(`^- link "Annual report" \[ref=e\d+\] \[url=/files/annual-report-2025\.pdf\]$`).MatchString(pdf) {
		t.Fatalf("link_filter pdf:\n%s", pdf)
	}
	if all := a.call("browser_snapshot", map[string]any{"links": true}).Snapshot; !strings.Contains(all, `link "About" [ref=`) || !strings.Contains(all, "[url=/about]") {
		t.Fatalf("links true:\n%s", all)
	}
	// Per ref: a scoped snapshot with links.
	about := a.ref(compact, `link "About"`)
	if one := a.call("browser_snapshot", map[string]any{"ref": about, "links": true}).Snapshot; one != `- link "About" [ref=`+about+`] [url=/about]` {
		t.Fatalf("the URL of %s alone:\n%s", about, one)
	}
	// The filtered link's ref acts.
	if res := a.call("browser_hover", map[string]any{"ref": a.ref(pdf, `link "Annual report"`)}); res.Snapshot == "" && res.SnapshotDiff == "" {
		t.Fatal("no snapshot after hovering the filtered link")
	}

	if _, e := a.try("default", "browser_snapshot", map[string]any{"full": true}); e == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "full_snapshots") {
		t.Fatalf("a full snapshot without full_snapshots: %v", e)
	}
	if _, e := a.try("wide", "browser_navigate", map[string]any{"url": site.URL + "/links"}); e != nil {
		t.Fatal(e)
	}
	res, e := a.try("wide", "browser_snapshot", map[string]any{"full": true})
	if e != nil {
		t.Fatalf("a full snapshot with full_snapshots: %v", e)
	}
	if !strings.Contains(res.Snapshot, "- /url: /files/annual-report-2025.pdf") || !strings.Contains(res.Snapshot, "News item 300") {
		t.Fatalf("the full snapshot is not the browser's:\n%.2000s", res.Snapshot)
	}
}

// TestHoverAndDragByRef: a hover menu and a drag-and-drop board built of
// plain <div>s. From the compacted snapshot alone, the agent hovers the
// menu open, clicks an entry and drags a card onto a drop zone, all by
// ref.
func TestHoverAndDragByRef(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/board": `<title>Board</title>
		<nav><div id="menu" onmouseenter="sub.hidden = false">Products
			<div id="sub" hidden style="cursor: pointer"><div id="lap">Laptops</div><div id="pho">Phones</div></div></div></nav>
		<p id="out">nothing yet</p>
		<div id="card" draggable="true" ondragstart="event.dataTransfer.setData('text/plain', 'Card A')">Card A</div>
		<div id="bin" style="height: 40px" ondragover="event.preventDefault()" ondrop="event.preventDefault(); out.textContent = 'dropped ' + event.dataTransfer.getData('text/plain')">Drop here</div>
		<script>for (const e of [lap, pho]) e.addEventListener("click", () => { out.textContent = "chose " + e.textContent; });</script>`})
	a := newAgent(t, site, "")
	snap := a.call("browser_navigate", map[string]any{"url": site.URL + "/board"}).Snapshot
	menu := a.ref(snap, `generic \[hoverable\]`)
	snap = a.call("browser_hover", map[string]any{"ref": menu, "snapshot": "full"}).Snapshot
	phones := a.ref(snap, `generic`+`[^\n]*: Phones`)
	if snap = a.call("browser_click", map[string]any{"ref": phones, "snapshot": "full"}).Snapshot; !strings.Contains(snap, "chose Phones") {
		t.Fatalf("clicking the menu entry %s did not act:\n%s", phones, snap)
	}
	card, bin := a.ref(snap, `generic \[draggable\]`), a.ref(snap, `generic \[droppable\]`)
	if snap = a.call("browser_drag", map[string]any{"ref": card, "target_ref": bin}).SnapshotDiff; !strings.Contains(snap, "dropped Card A") {
		t.Fatalf("dragging %s onto %s did not drop:\n%s", card, bin, snap)
	}
}
