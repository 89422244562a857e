package console_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// TestConsoleShowsWhatIsAtStake checks the console as an operator uses it,
// in their Chromium: an approval card names the element (role, name,
// ref), the page's title and URL, shows a picture of the page and opens
// the live view in place; the sessions table names the agent's MCP client
// and its last tool; a takeover card holds the live view beside it; the
// event log reads as sentences, newest first, filtered by tool; a closed
// client's session goes. Screenshots of each are saved (shot) for a person
// to look at.
func TestConsoleShowsWhatIsAtStake(t *testing.T) {
	r := newRig(t)
	b := operatorBrowser(t)
	op := r.login(t, b, r.opToken, true)
	op.SetViewportSize(1400, 1000)
	waitFor(t, op, `document.body.dataset.connected === "1"`)

	ref := r.freshPage(t)
	done := r.callAsync(t, "browser_click", map[string]any{"ref": ref})
	waitFor(t, op, `ref => { const a = document.querySelector("#approvals .approval"); return a && a.querySelector(".element") && a.querySelector(".element").textContent === 'button "Press me"' && a.textContent.includes("[ref " + ref + "]") && a.querySelector(".page-title").textContent === "Agent page" }`, ref)
	waitFor(t, op, `() => { const i = document.querySelector("#approvals .approval img.shot"); return i && i.complete && i.naturalWidth > 300 }`)
	if got, _ := op.Locator("#approvals .approval .url").TextContent(); got != r.site.URL+"/" {
		t.Fatalf("the approval card's URL: %q", got)
	}
	// The session's call waits for approval: the table says so, not idle.
	row := `#sessions tr[data-session="` + r.sessionName() + `"]`
	waitFor(t, op, `s => { const r = document.querySelector(s); return r && r.querySelector(".state").textContent === "waiting for approval" }`, row)
	shot(t, op, "approval-card.png")
	picture, err := op.Locator("#approvals .approval .live-slot .frame").BoundingBox()
	must(t, err)
	must(t, op.Locator("#approvals .approval button.watch").Click())
	waitFor(t, op, `() => !!document.querySelector("#approvals .approval .live-slot #live-panel:not([hidden])") && Number(document.getElementById("live").dataset.seq) >= 1`)
	liveInTheBox(t, op, picture)
	shot(t, op, "approval-live-in-place.png")
	must(t, op.Locator("#live-stop").Click())
	must(t, op.Locator("#approvals button.approve-once").Click())
	if res := <-done; res.isErr || !strings.Contains(res.text, "clicked") {
		t.Fatalf("approved on the card, the click did not run: %s", res.text)
	}

	waitFor(t, op, `s => { const r = document.querySelector(s); return r && r.querySelector(".client").textContent === "agent" && r.querySelector(".last").textContent.includes("browser_click") }`, row)
	shot(t, op, "sessions.png")

	done = r.callAsync(t, "browser_request_takeover", map[string]any{"reason": "check the order before it is sent", "timeout_s": 120})
	waitFor(t, op, `() => document.querySelectorAll("#takeovers .card").length === 1`)
	must(t, op.Locator("#takeovers button.watch").Click())
	waitFor(t, op, `() => !!document.querySelector("#takeovers .card .live-slot #live-panel:not([hidden])") && Number(document.getElementById("live").dataset.seq) >= 1`)
	body, err := op.Locator("#takeovers .card .card-body").BoundingBox()
	must(t, err)
	live, err := op.Locator("#takeovers .card #live-panel").BoundingBox()
	must(t, err)
	if live.X < body.X+body.Width-1 || live.Y > body.Y+body.Height {
		t.Fatalf("the live view is not beside the takeover card: card %+v, live view %+v", body, live)
	}
	shot(t, op, "takeover-card.png")
	must(t, op.Locator("#takeovers button.handback").Click())
	if res := <-done; res.isErr || !strings.Contains(res.text, `"handed_back":true`) {
		t.Fatalf("hand-back: %s", res.text)
	}

	// The event log: sentences, newest first; filtered to one tool.
	waitFor(t, op, `() => { const li = document.querySelector("#events li"); return li && li.textContent.includes("browser_request_takeover ran") }`)
	if first, _ := op.Locator("#events li").First().TextContent(); strings.Contains(first, "{") {
		t.Fatalf("the newest event is not a sentence: %s", first)
	}
	_, err = op.Locator("#f-tool").SelectOption(selectValue("browser_click"))
	must(t, err)
	waitFor(t, op, `() => { const li = [...document.querySelectorAll("#events li")]; return li.length > 0 && li.every((l) => l.textContent.includes("browser_click")) }`)
	shot(t, op, "events-filtered.png")
	_, err = op.Locator("#f-tool").SelectOption(selectValue(""))
	must(t, err)

	r.typingApprovals(t, op)
	r.longEventLog(t, op)

	// A client that goes: its session goes from the table.
	r.Agent.Close()
	t0 := time.Now()
	waitFor(t, op, `s => !document.querySelector(s)`, row)
	t.Logf("a closed client's session left the table in %s", time.Since(t0).Round(time.Millisecond))
}

// liveInTheBox: the live view takes the boxed picture's place, in the same
// framed box of the card (not an unframed panel of its own), with the
// element boxed again over it.
func liveInTheBox(t *testing.T, op pw.Page, picture *pw.Rect) {
	t.Helper()
	waitFor(t, op, `() => { const f = document.querySelector("#approvals .approval .live-slot .frame"); const b = f && f.querySelector(".box");
		return !!f && f.contains(document.getElementById("live")) && !!b && getComputedStyle(b).display === "block" }`)
	live, err := op.Locator("#approvals .approval .frame #live").BoundingBox()
	must(t, err)
	box, err := op.Locator("#approvals .approval .frame .box").BoundingBox()
	must(t, err)
	if live.X != picture.X+1 || live.Y != picture.Y+1 || live.Width < picture.Width-4 {
		t.Fatalf("the live view is not where the picture was: picture frame %+v, live view %+v", picture, live)
	}
	if box.X < live.X || box.Y < live.Y || box.X+box.Width > live.X+live.Width || box.Y+box.Height > live.Y+live.Height || box.Width < 20 {
		t.Fatalf("the element's box %+v is not over the live view %+v", box, live)
	}
}

// typingApprovals: a browser_type approval says the text to be typed;
// typed into a password field, or holding a value the vault stores, it is
// masked.
func (r *rig) typingApprovals(t *testing.T, op pw.Page) {
	t.Helper()
	snap := r.MustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/login"})
	user, pass := regexpRef(t, snap, `textbox "Username"`), regexpRef(t, snap, `textbox "Password"`)
	for _, c := range []struct{ ref, text, want, never string }{
		{user, "ada lovelace", `"ada lovelace"`, ""},
		{pass, "hunter2-typed", "hidden: a password field", "hunter2"},
		{user, "me " + credPass, `"me `, credPass},
	} {
		done := r.callAsync(t, "browser_type", map[string]any{"ref": c.ref, "text": c.text})
		waitFor(t, op, `want => { const e = document.querySelector("#approvals .approval .typed"); return !!e && e.textContent.includes(want) }`, c.want)
		if got, _ := op.Locator("#approvals .approval .typed").TextContent(); c.never != "" && strings.Contains(got, c.never) {
			t.Fatalf("the card shows a secret: %q", got)
		}
		must(t, op.Locator("#approvals button.deny").Click())
		if res := <-done; !res.isErr {
			t.Fatalf("denied, the typing ran: %s", res.text)
		}
		waitFor(t, op, `() => !document.querySelector("#approvals .approval")`)
	}
}

// longEventLog: more events than the state stream carries; the log pages
// back to the oldest, its numbers from 10 up are whole, a refused navigate
// is under "refused" naming where it was refused, and a credential fill
// reads as a sentence.
func (r *rig) longEventLog(t *testing.T, op pw.Page) {
	t.Helper()
	if text, isErr := r.Call(t, "browser_navigate", map[string]any{"url": "http://127.0.0.1:9999/"}); !isErr || !strings.Contains(text, "refused") {
		t.Fatalf("navigate to a host not allowed: %s", text)
	}
	r.h.Emit(hostfuncs.Event{Kind: "vault.fill", Personality: "default", Session: r.sessionName(),
		Data: []byte(fmt.Sprintf(`{"credential":"attended","outcome":"filled","origin":%q,"fields":["e3","e5"],"attended":true}`, r.site.URL))})
	for i := range 120 {
		r.h.Emit(hostfuncs.Event{Kind: "tool.call", Personality: "default", Session: r.sessionName(), Data: []byte(fmt.Sprintf(`{"tool":"browser_snapshot","outcome":"ok","ms":%d}`, i))})
	}
	waitFor(t, op, `() => { const li = document.querySelectorAll("#events li"); return li.length === 50 && !document.getElementById("events-older").hidden }`)
	n := op.Locator("#events li .n").Nth(11)
	if txt, _ := n.TextContent(); txt != "12" {
		t.Fatalf("the 12th event is numbered %q", txt)
	}
	if clipped := evalInt(t, op, `() => { const n = document.querySelectorAll("#events li .n")[11], l = document.getElementById("events");
		const a = n.getBoundingClientRect(), b = l.getBoundingClientRect(); return a.left < b.left || n.scrollWidth > n.clientWidth ? 1 : 0 }`); clipped != 0 {
		t.Fatal("the number 12 is clipped")
	}
	for range 10 {
		if hidden, _ := op.Locator("#events-older").IsHidden(); hidden {
			break
		}
		shown := evalInt(t, op, `document.querySelectorAll("#events li").length`)
		must(t, op.Locator("#events-older").Click())
		waitFor(t, op, `n => document.querySelectorAll("#events li").length > n`, shown)
	}
	waitFor(t, op, `() => { const li = [...document.querySelectorAll("#events li")]; return li.length > 120 && document.getElementById("events-older").hidden &&
		li.some((l) => l.dataset.kind === "vault.fill" && l.textContent.includes('filled stored login "attended" into 2 fields') && !l.textContent.includes("{")) }`)
	_, err := op.Locator("#f-outcome").SelectOption(selectValue("refused"))
	must(t, err)
	waitFor(t, op, `() => [...document.querySelectorAll("#events li")].some((l) => l.textContent.includes("browser_navigate to http://127.0.0.1:9999 failed (refused)"))`)
	shot(t, op, "events-refused.png")
}
