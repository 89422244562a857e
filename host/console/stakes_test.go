package console_test

import (
	"strings"
	"testing"
	"time"
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
	shot(t, op, "approval-card.png")
	must(t, op.Locator("#approvals .approval button.watch").Click())
	waitFor(t, op, `() => !!document.querySelector("#approvals .approval .live-slot #live-panel:not([hidden])") && Number(document.getElementById("live").dataset.seq) >= 1`)
	shot(t, op, "approval-live-in-place.png")
	must(t, op.Locator("#live-stop").Click())
	must(t, op.Locator("#approvals button.approve-once").Click())
	if res := <-done; res.isErr || !strings.Contains(res.text, "clicked") {
		t.Fatalf("approved on the card, the click did not run: %s", res.text)
	}

	row := `#sessions tr[data-session="` + r.sessionName() + `"]`
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

	// A client that goes: its session goes from the table.
	r.agent.Close()
	t0 := time.Now()
	waitFor(t, op, `s => !document.querySelector(s)`, row)
	t.Logf("a closed client's session left the table in %s", time.Since(t0).Round(time.Millisecond))
}
