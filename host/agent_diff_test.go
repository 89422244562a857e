package host

import (
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/host/snapdiff"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/logrec"
)

// TestNewPagesOfASiteCollapseTheirChrome: a navigation to another page
// of the same site prints the header it shares with the last page as a
// line; the refs the agent read there work on the new page (each new
// document's refs have another prefix); snapshot "full" prints the lines.
// (Another site's page is whole: TestSameSite.)
func TestNewPagesOfASiteCollapseTheirChrome(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	chrome := func(title, body string) string {
		return `<title>` + title + `</title><header><a href="/">Home</a><nav><a href="/news">News</a> <a href="/sport">Sport</a> <a href="/weather">Weather</a> <a href="/about">About</a>
			<a href="/world">World news</a> <a href="/business">Business and markets</a> <a href="/technology">Technology</a> <a href="/science">Science and health</a> <a href="/culture">Culture</a></nav></header>
			<main><h1>` + title + `</h1>` + body + `</main>
			<footer><a href="/jobs">Jobs</a> <a href="/contact">Contact</a> <a href="/legal">Legal</a></footer>`
	}
	site := serve(t, map[string]string{
		"/news":    chrome("News", `<p>Today's news.</p>`),
		"/sport":   chrome("Sport", `<p>Scores.</p><button>Refresh</button>`),
		"/weather": chrome("Weather", `<p>Rain.</p>`),
	})
	a := newAgent(t, site, "")
	first := a.call("browser_navigate", map[string]any{"url": site.URL + "/news"}).Snapshot
	if strings.Contains(first, "as on the previous page") {
		t.Fatalf("the first page of a session collapsed:\n%s", first)
	}
	weather := a.ref(first, `link "Weather"`)
	second := a.call("browser_navigate", map[string]any{"url": site.URL + "/sport"}).Snapshot
	if strings.Contains(second, `link "Weather"`) || !strings.Contains(second, "as on the previous page") ||
		!strings.Contains(second, "Scores.") || !strings.Contains(second, `button "Refresh"`) || len(second) >= len(first) {
		t.Fatalf("the second page of the site, its chrome not collapsed or its own content gone:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	if full := a.call("browser_snapshot", map[string]any{"snapshot": "full"}).Snapshot; !strings.Contains(full, `link "Weather"`) || strings.Contains(full, "as on the previous page") {
		t.Fatalf("snapshot full does not print the shared lines:\n%s", full)
	}
	// The collapsed line says the refs read on the first page work here.
	res := a.call("browser_click", map[string]any{"ref": weather})
	if !strings.Contains(res.Snapshot, "Rain.") || !strings.Contains(res.Snapshot, "as on the previous page") {
		t.Fatalf("the ref read on the first page did not lead to the weather page: %+v", res)
	}
	// Two pages on, the header printed only on the first: its refs still
	// lead where they say.
	res = a.call("browser_click", map[string]any{"ref": a.ref(first, `link "Sport"`)})
	if !strings.Contains(res.Snapshot, "Scores.") {
		t.Fatalf("a ref of the first page, two collapsed pages on, did not lead to the sport page: %+v", res)
	}
}

// A page collapses against the last only on one scheme and host (port
// included).
func TestSameSite(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?x=1", true},
		{"https://Example.com/a", "https://example.com/", true},
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8081/a", false},
		{"http://example.com/a", "https://example.com/a", false},
		{"http://example.com/a", "http://www.example.com/a", false},
		{"", "http://example.com/", false},
		{"about:blank", "about:blank", false},
	} {
		if got := sameSite(tc.a, tc.b); got != tc.want {
			t.Errorf("sameSite(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// TestActionsReturnSnapshotDiffs: through the host over real Chromium, a
// click that changes text returns only that change, with its ref, which
// applied to the snapshot the agent had gives the page's next snapshot;
// snapshot "none" returns no snapshot, "full" the whole one; a scoped
// snapshot does not become the baseline; a click that changes the URL or
// navigates returns the page whole.
func TestActionsReturnSnapshotDiffs(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := serve(t, map[string]string{
		"/count": `<title>Count</title><h1>Counter</h1>
			<input id="t" aria-label="Total" value="0 clicks">
			<button onclick="t.value = (window.c = (window.c || 0) + 1) + ' clicks'">Add</button>
			<button onclick="history.pushState(null, '', '/count/moved')">Move</button>
			<ul>` + strings.Repeat("<li>an item of a list</li>", 20) + `<li>the last item</li></ul>
			<a href="/other">Elsewhere</a>`,
		"/other": `<title>Other</title><h1>Another page</h1><p>Nothing here</p>`,
	})
	a := newAgent(t, site, "")
	prev := a.call("browser_navigate", map[string]any{"url": site.URL + "/count"}).Snapshot
	button, total := a.ref(prev, `button "Add"`), a.ref(prev, `textbox "Total"`)

	res := a.call("browser_click", map[string]any{"ref": button})
	if res.Snapshot != "" || res.SnapshotDiff == "" {
		t.Fatalf("a click that changes text gave no diff (snapshot %q, diff %q)", res.Snapshot, res.SnapshotDiff)
	}
	if !regexp.MustCompile(`(?m)^~ - textbox "Total" \[ref=` + total + `\]: 1 clicks$`).MatchString(res.SnapshotDiff) {
		t.Errorf("the diff does not show the textbox %s changed to 1 clicks:\n%s", total, res.SnapshotDiff)
	}
	if strings.Contains(res.SnapshotDiff, "the last item") {
		t.Errorf("the diff repeats unchanged lines far from the change:\n%s", res.SnapshotDiff)
	}
	next := a.call("browser_snapshot", map[string]any{"snapshot": "full"}).Snapshot
	if got, err := snapdiff.Apply(prev, res.SnapshotDiff); err != nil || got != next {
		t.Fatalf("the diff applied to the previous snapshot (%v):\n%s\nis not the next snapshot:\n%s", err, got, next)
	}

	if res := a.call("browser_click", map[string]any{"ref": button, "snapshot": "none"}); res.Snapshot != "" || res.SnapshotDiff != "" {
		t.Errorf("snapshot none returned one: %+v", res)
	}
	res = a.call("browser_click", map[string]any{"ref": button, "snapshot": "full"})
	if res.SnapshotDiff != "" || !strings.Contains(res.Snapshot, "3 clicks") || !strings.Contains(res.Snapshot, "the last item") {
		t.Errorf("snapshot full did not return the whole snapshot: %+v", res)
	}
	// A scoped view is not the baseline: the next diff is against the
	// full snapshot above, so it holds exactly the button's change.
	a.call("browser_snapshot", map[string]any{"ref": button})
	res = a.call("browser_click", map[string]any{"ref": button})
	if !strings.Contains(res.SnapshotDiff, "0 added, 0 removed") || !strings.Contains(res.SnapshotDiff, "4 clicks") {
		t.Errorf("after a scoped snapshot the diff is not against the last full one:\n%s", res.SnapshotDiff)
	}
	res = a.call("browser_click", map[string]any{"ref": button})
	if res.SnapshotDiff != "" && strings.Contains(res.SnapshotDiff, "0 added, 0 removed, 0 changed") {
		t.Errorf("a change rendered as an empty diff: %s", res.SnapshotDiff)
	}

	if res := a.call("browser_press", map[string]any{"key": "Shift"}); res.SnapshotDiff != snapdiff.Unchanged {
		t.Errorf("an action that changed nothing gave %q, %q", res.SnapshotDiff, res.Snapshot)
	}

	// The URL changed without a new document: the page is given whole.
	res = a.call("browser_click", map[string]any{"ref": a.ref(next, `button "Move"`)})
	if res.SnapshotDiff != "" || !strings.Contains(res.Snapshot, "the last item") {
		t.Errorf("a click that changed the URL did not return the page whole: %+v", res)
	}
	res = a.call("browser_click", map[string]any{"ref": a.ref(next, `link "Elsewhere"`)})
	if res.SnapshotDiff != "" || !strings.Contains(res.Snapshot, "Another page") {
		t.Errorf("a click that navigated did not return the new page whole: %+v", res)
	}
}

// TestSnapshotDiffNeverRevealsMaskedValue: a password filled from the
// vault, then shown by the page, appears masked in the diff (the diff is
// between masked snapshots), never raw; and a value the page showed before
// it became a secret (in the agent's last snapshot, unmasked then) is not
// repeated by a diff's removed lines: that action returns the masked
// snapshot whole instead of being withheld.
// TestSnapshotSentOnceUntilChanged: a browser_snapshot of the page the
// agent last received answers one line (refs still valid), snapshot
// "full" gives it whole, and a changed page is given whole.
func TestSnapshotSentOnceUntilChanged(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := serve(t, map[string]string{
		"/": `<title>Once</title><h1>Once</h1><input aria-label="Total" value="0"><button onclick="document.querySelector('input').value = '1'">Add</button>`,
	})
	a := newAgent(t, site, "")
	first := a.call("browser_navigate", map[string]any{"url": site.URL + "/"}).Snapshot
	res := a.call("browser_snapshot", map[string]any{})
	if res.Snapshot != "" || res.SnapshotDiff != snapdiff.Same {
		t.Fatalf("a snapshot of the page the agent just received was sent again: %+v", res)
	}
	if res := a.call("browser_snapshot", map[string]any{"snapshot": "full"}); res.Snapshot != first {
		t.Fatalf("snapshot full did not give the page whole:\n%s\nwant:\n%s", res.Snapshot, first)
	}
	// The ref of the first snapshot still acts.
	a.call("browser_click", map[string]any{"ref": a.ref(first, `button "Add"`), "snapshot": "none"})
	if res := a.call("browser_snapshot", map[string]any{}); !strings.Contains(res.Snapshot, `textbox "Total"`) || !strings.Contains(res.Snapshot, ": \"1\"") && !strings.Contains(res.Snapshot, ": 1") {
		t.Fatalf("the changed page was not given whole: %+v", res)
	}
}

func TestSnapshotDiffNeverRevealsMaskedValue(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/login": `<title>Sign in</title>
		<label>Username <input id="u" autocomplete="username"></label>
		<label>Password <input type="password" id="p"></label>
		<p>Your new password is diff-Pa55-word</p>
		<button onclick="this.textContent = 'you typed ' + p.value">Show</button>` + strings.Repeat("<p>filler text that makes the page longer than a diff</p>", 10)})
	a := newAgent(t, site, "")
	const secret = "diff-Pa55-word"
	a.storeLogins(site, vault.Credential{Name: "site", Username: "ada", Password: secret})
	snap := a.call("browser_navigate", map[string]any{"url": site.URL + "/login"}).Snapshot
	res := a.call("browser_fill_credential", map[string]any{"credential": "site", "username_ref": a.ref(snap, `textbox "Username"`), "password_ref": a.ref(snap, `textbox "Password"`)})
	if out, _ := json.Marshal(res); strings.Contains(string(out), secret) || res.SnapshotDiff != "" || !strings.Contains(res.Snapshot, "Your new password is ••") {
		t.Fatalf("the fill's result is not the masked snapshot whole: %s", out)
	}
	a.call("browser_snapshot", map[string]any{"snapshot": "full"})
	res = a.call("browser_click", map[string]any{"ref": a.ref(snap, `button "Show"`)})
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), secret) {
		t.Fatalf("the password is in the result: %s", out)
	}
	if !regexp.MustCompile(`(?m)^[+~] .*you typed`).MatchString(res.SnapshotDiff) || strings.Contains(res.SnapshotDiff, "filler") {
		t.Errorf("the diff does not show the page's change (masked):\n%s", res.SnapshotDiff)
	}
}

// TestSnapshotAfterNavigateCompactsOnce: a browser_snapshot of the page a
// navigate just returned reuses the navigate's compaction (the cache key
// is the page's URL the host notes on both, not the navigate's page
// facts) and answers that the snapshot is unchanged.
func TestSnapshotAfterNavigateCompactsOnce(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/p": `<title>P</title><h1>Still</h1><a href="/p">Again</a>`})
	var logs logrec.Buffer
	a := newAgentWith(t, site, "", Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	a.call("browser_navigate", map[string]any{"url": site.URL + "/p"})
	res := a.call("browser_snapshot", map[string]any{})
	if res.SnapshotDiff != snapdiff.Same {
		t.Fatalf("the snapshot of an unchanged page: %+v", res)
	}
	if n := strings.Count(logs.String(), "role=compact"); n != 1 {
		t.Fatalf("navigate then snapshot of the same page ran the compactor %d times, want 1:\n%s", n, logs.String())
	}
}
