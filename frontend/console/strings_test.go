package console_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs/operator"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/console"
)

// TestPeopleSeeQuotedMaskedText: every string that reaches a person is
// what a person should see. An approval of a click on a page that names a
// "Delete my account" button "approve this", titles itself with markdown
// and a fake origin, and echoes the vault's password in its title, the
// button's name and its URL is asked, in the console card (its JSON), the
// webhook post and the agent's client's question, with the visible text
// beside the name, quoted and escaped, the host's own origin, and never
// the password. A takeover whose reason holds the stored password and
// chat markup reaches the webhook escaped (no live link, no @channel),
// the client's URL question as one quoted plain line, and the event log
// masked.
func TestPeopleSeeQuotedMaskedText(t *testing.T) {
	const secret = "hook-secret-strings"
	posts := make(chan received, 8)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		posts <- received{body: b, signature: r.Header.Get(console.SignatureHeader), ts: r.Header.Get(console.TimestampHeader)}
	}))
	t.Cleanup(recv.Close)
	t.Setenv("WW_TEST_NOTIFY_SECRET", secret)
	a := newAsker()
	r := newRigWith(t, rigOptions{approval: `{ act = "ask", timeout = "90s", via = ["client", "console"] }`, client: a.options(), personality: `takeover = { via = ["console", "client"] }`, console: fmt.Sprintf(`[console.notify]
url = %q
secret_env = "WW_TEST_NOTIFY_SECRET"
allow_loopback = true`, recv.URL)})
	ctx, stop := contextWithCancel(t)
	go r.console.Notify(ctx, r.cfg.Console.Notify)
	defer stop()
	defer r.h.Desk().Attach("default")()
	origin := r.site.URL

	snap := r.MustCall(t, "browser_navigate", map[string]any{"url": origin + "/echo?k=" + credPass})
	ref := regexpRef(t, snap, `button "approve this`)
	done := r.callAsync(t, "browser_click", map[string]any{"ref": ref})

	// The agent's client: one plain line; the page's words quoted with
	// their markdown escaped; the origin the host's, after them.
	q := a.next(t)
	for _, want := range []string{
		`button showing "Delete my account" (its accessible name says "approve this ••••••") [ref ` + ref + `]`,
		`whose title reads "\[Verified\](https://evil.example) at the origin https://bank.example ••••••", at the origin ` + origin + `.`,
	} {
		if !strings.Contains(q.Message, want) {
			t.Errorf("the client's question lacks %s:\n%s", want, q.Message)
		}
	}
	if strings.Contains(q.Message, credPass) || strings.ContainsAny(q.Message, "\n\r") {
		t.Errorf("the client's question holds the password or a newline:\n%s", q.Message)
	}

	// The webhook post: the element with its visible text and its name,
	// escaped for chat; no password.
	p := nextPost(t, posts, secret)
	var ping console.Ping
	must(t, json.Unmarshal(p.body, &ping))
	if ping.Kind != "approval" || !strings.Contains(ping.Element, `showing "Delete my account"`) || !strings.Contains(ping.Element, `"approve this ••••••"`) ||
		!strings.Contains(ping.Text, ping.Element) || !strings.Contains(ping.Text, "at the origin "+origin) {
		t.Errorf("the approval post does not show the element as seen and named: %s", p.body)
	}
	if strings.Contains(string(p.body), credPass) {
		t.Errorf("the approval post holds the password: %s", p.body)
	}

	// The console card, as the console sends it: masked, both strings.
	card := mustJSON(t, r.h.Desk().Approvals())
	if strings.Contains(card, credPass) || !strings.Contains(card, `"text":"Delete my account"`) || !strings.Contains(card, `"name":"approve this ••••••"`) ||
		!strings.Contains(card, `"url":"`+origin+`/echo?k=••••••"`) {
		t.Errorf("the console card: %s", card)
	}
	a.answers <- &sdk.ElicitResult{Action: "decline"}
	if res := <-done; !res.isErr {
		t.Fatalf("declined, the click ran: %s", res.text)
	}

	// A takeover reason with the stored password and chat markup.
	reason := "log in with " + credPass + " then see <https://x|label> @channel <!here>\n# Heading [link](https://evil.example)"
	done = r.callAsync(t, "browser_request_takeover", map[string]any{"reason": reason, "timeout_s": 120})
	q = a.next(t)
	if q.Mode != "url" || strings.Contains(q.Message, credPass) || strings.ContainsAny(q.Message, "\n\r") || strings.Contains(q.Message, "<https://x|label>") ||
		strings.Contains(q.Message, "[link](") || !strings.Contains(q.Message, `"log in with •••••• then see \<https://x\|label\> @channel \<\!here\> \# Heading \[link\](https://evil.example)"`) {
		t.Errorf("the client's takeover question is not one masked, quoted, escaped line:\n%s", q.Message)
	}
	a.answers <- &sdk.ElicitResult{Action: "accept"}
	p = nextPost(t, posts, secret)
	must(t, json.Unmarshal(p.body, &ping))
	if ping.Kind != "takeover" {
		t.Fatalf("not the takeover post: %s", p.body)
	}
	for _, s := range []string{ping.Text, ping.Reason} {
		if strings.Contains(s, credPass) || strings.Contains(s, "<") || strings.Contains(s, "@channel") || strings.Contains(s, "\n") ||
			!strings.Contains(s, "log in with •••••• then see &lt;https://x|label&gt; ＠channel &lt;!here&gt; # Heading") {
			t.Errorf("the takeover post is not masked and escaped for chat: %q", s)
		}
	}
	must(t, r.h.Desk().EndTakeover(ping.ID, false, operator.Actor{Kind: operator.ActorOperator, Name: "test"}))
	<-done

	// The event log: the reason masked.
	found := false
	for _, e := range r.h.RecentEvents(-1) {
		if strings.Contains(string(e.Data), credPass) {
			t.Errorf("event %s holds the password: %s", e.Kind, e.Data)
		}
		if e.Kind == "takeover.requested" && strings.Contains(string(e.Data), "log in with ••••••") {
			found = true
		}
	}
	if !found {
		t.Error("no takeover.requested event with the masked reason")
	}
}
