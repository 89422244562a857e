package console_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/websocket"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// linkHolder is whoever holds a takeover link: an HTTP client that spends
// the link the agent's client was sent, watches its live view and posts
// input and the hand-back, as the takeover page does.
type linkHolder struct {
	r    *rig
	http *http.Client
	ws   *websocket.Conn
	msgs chan map[string]any
}

// openLink spends the link u (GET, as a browser opening it) and keeps its
// cookie.
func openLink(t *testing.T, r *rig, u string) *linkHolder {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	lh := &linkHolder{r: r, http: &http.Client{Jar: jar}}
	res, err := lh.http.Get(u)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("opening the takeover link: %d", res.StatusCode)
	}
	return lh
}

func (lh *linkHolder) cookie(t *testing.T) string {
	u, _ := url.Parse(lh.r.base + "/t/api/live")
	var parts []string
	for _, c := range lh.http.Jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	if len(parts) == 0 {
		t.Fatal("the link gave no cookie")
	}
	return strings.Join(parts, "; ")
}

// watch opens the link's live view; its messages arrive on lh.msgs.
func (lh *linkHolder) watch(t *testing.T) {
	t.Helper()
	cfg, _ := websocket.NewConfig(strings.Replace(lh.r.base, "http://", "ws://", 1)+"/t/api/live", lh.r.srv.URL)
	cfg.Header.Set("Cookie", lh.cookie(t))
	ws, err := websocket.DialConfig(cfg)
	must(t, err)
	t.Cleanup(func() { ws.Close() })
	lh.ws, lh.msgs = ws, make(chan map[string]any, 256)
	go func() {
		defer close(lh.msgs)
		for {
			var m map[string]any
			if websocket.JSON.Receive(ws, &m) != nil {
				return
			}
			lh.msgs <- m
		}
	}()
}

// next is the live view's next message of type typ (others are skipped).
func (lh *linkHolder) next(t *testing.T, typ string) map[string]any {
	t.Helper()
	deadline := time.After(60 * time.Second) // a hang-catcher
	for {
		select {
		case m, ok := <-lh.msgs:
			if !ok {
				t.Fatalf("the live view closed while waiting for a %s", typ)
			}
			if m["type"] == typ {
				return m
			}
		case <-deadline:
			t.Fatalf("no %s from the live view within 60 s", typ)
		}
	}
}

// input sends one input and returns the answer to it (ack or error).
func (lh *linkHolder) input(t *testing.T, in map[string]any) map[string]any {
	t.Helper()
	in["type"] = "input"
	must(t, websocket.JSON.Send(lh.ws, in))
	deadline := time.After(120 * time.Second) // a hang-catcher: an approval may be waited for
	for {
		select {
		case m, ok := <-lh.msgs:
			if !ok {
				t.Fatal("the live view closed while waiting for the input's answer")
			}
			if m["kind"] == in["kind"] && (m["type"] == "ack" || m["type"] == "error") {
				return m
			}
		case <-deadline:
			t.Fatal("the input was never answered")
		}
	}
}

// end posts the hand-back (or cancel) from the takeover page's origin.
func (lh *linkHolder) end(t *testing.T, handBack bool) {
	t.Helper()
	body := `{"hand_back":false}`
	if handBack {
		body = `{"hand_back":true}`
	}
	req, _ := http.NewRequest(http.MethodPost, lh.r.base+"/t/api/end", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", lh.r.srv.URL)
	res, err := lh.http.Do(req)
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the link's hand-back: %d", res.StatusCode)
	}
}

// frameImage decodes a live-view frame and gives its scale (image pixels
// per CSS pixel).
func frameImage(t *testing.T, m map[string]any) (image.Image, float64) {
	t.Helper()
	s, _ := m["jpeg"].(string)
	b, err := base64.StdEncoding.DecodeString(s)
	must(t, err)
	img, err := jpeg.Decode(bytes.NewReader(b))
	must(t, err)
	w, _ := m["w"].(float64)
	if w <= 0 {
		t.Fatalf("a frame without its viewport's width: %v", m["w"])
	}
	return img, float64(img.Bounds().Dx()) / w
}

// dark counts the dark pixels of img in the CSS box (x, y, w, h), shrunk
// by 4 CSS pixels on each side.
func dark(img image.Image, scale float64, x, y, w, h float64) int {
	return testkit.DarkPixels(img, image.Rect(int((x+4)*scale), int((y+4)*scale), int((x+w-4)*scale), int((y+h-4)*scale)))
}

// pageTitle is the title of the agent's current page, as the console
// lists it (the page's own state, whatever any viewer was shown).
func (r *rig) pageTitle(t *testing.T) string {
	t.Helper()
	for _, s := range r.h.Browser().OperatorSessions() {
		if s.Session == r.sessionName() {
			return s.Title
		}
	}
	t.Fatal("the agent's session is not open")
	return ""
}

// takeoverLink asks for a takeover and returns the link the agent's
// client was sent (accepted) and the pending call.
func (r *rig) takeoverLink(t *testing.T, a *asker, reason string) (string, <-chan callResult) {
	t.Helper()
	done := r.callAsync(t, "browser_request_takeover", map[string]any{"reason": reason, "timeout_s": 300})
	q := a.next(t)
	if q.Mode != "url" || !strings.HasPrefix(q.URL, r.base+"/t/") {
		t.Fatalf("not a takeover link: %+v", q)
	}
	a.answers <- &sdk.ElicitResult{Action: "accept"}
	return q.URL, done
}

// TestLinkHolderIsTheAgent: with the takeover link opted in
// (takeover.via naming the client) and act = "ask", whoever holds the
// link the agent's client was sent is treated as the agent (issue 33,
// "the takeover link goes to the agent's own client"):
//
//	(b) its click on the live view is refused while no operator's console
//	    is connected, and waits for an operator's approval while one is:
//	    the page is unchanged until the operator approves;
//	(a) once the page's own "show password" button shows a password the
//	    vault filled by reference, the live view's frames do not show it
//	    (the frame that shows the button pressed has no ink where the
//	    password is);
//	(c) its hand-back returns the session but releases no withheld bot
//	    wall: the next browser_read answers bot_wall. An operator's
//	    hand-back does release it.
func TestLinkHolderIsTheAgent(t *testing.T) {
	a := newAsker()
	r := newRigWith(t, rigOptions{client: a.options(), plugins: []string{"blockdetect"},
		personality: "takeover = { via = [\"console\", \"client\"] }\nhooks = { detect = \"blockdetect\" }"})
	snap := r.mustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/showpw"})
	detach := r.h.Desk().Attach("default") // the stored login is attended-only
	r.mustCall(t, "browser_fill_credential", map[string]any{"credential": "attended",
		"username_ref": regexpRef(t, snap, `textbox "Username"`), "password_ref": regexpRef(t, snap, `textbox "Password"`)})
	detach()

	u, done := r.takeoverLink(t, a, "press show password")
	lh := openLink(t, r, u)
	lh.watch(t)
	lh.next(t, "frame")

	// (b) No console: refused, the page untouched.
	show := map[string]any{"kind": "click", "x": 160, "y": 130}
	if m := lh.input(t, show); m["type"] != "error" || !strings.Contains(mustJSON(t, m["error"]), "Approval required") {
		t.Fatalf("the link holder's click ran with no operator to approve it: %v", m)
	}
	if title := r.pageTitle(t); title != "Show password" {
		t.Fatalf("a refused click changed the page: title %q", title)
	}
	// A console: the click waits for the operator's approval.
	defer r.h.Desk().Attach("default")()
	answered := make(chan map[string]any, 1)
	go func() { answered <- lh.input(t, show) }()
	card := waitApproval(t, r.h.Desk())
	if card.Tool != host.LinkInputTool || card.Risk != "act" {
		t.Fatalf("the approval asked: %+v", card)
	}
	if title := r.pageTitle(t); title != "Show password" {
		t.Fatalf("the click ran before the operator approved it: title %q", title)
	}
	must(t, r.h.Desk().Decide(card.ID, decision(operator.ApproveOnce)))
	approved := time.Now()
	if m := <-answered; m["type"] != "ack" {
		t.Fatalf("approved, the click did not run: %v", m)
	}
	// Both judgements are in the event log, as the agent's calls are.
	var decisions []string
	for _, e := range r.h.RecentEvents(50) {
		if e.Kind == host.EventTool && strings.Contains(string(e.Data), host.LinkInputTool) {
			var d host.ToolEvent
			must(t, json.Unmarshal(e.Data, &d))
			decisions = append(decisions, d.Decision)
		}
	}
	if strings.Join(decisions, ",") != "ask:unattended,ask:once" {
		t.Fatalf("the link holder's inputs in the event log: %v", decisions)
	}

	// (a) The first frame showing the button pressed (#mark black) shows
	// nothing where the filled password is now plain text.
	for {
		img, scale := frameImage(t, lh.next(t, "frame"))
		if dark(img, scale, 10, 200, 100, 100) < 1000 {
			continue // a frame from before the click
		}
		if n := dark(img, scale, 10, 10, 600, 60); n > 10 {
			t.Fatalf("the live view shows the password field's value to the link holder (%d dark pixels)", n)
		}
		t.Logf("approval to the first concealed frame of the changed page: %s", time.Since(approved).Round(time.Millisecond))
		break
	}
	lh.end(t, true)
	if res := <-done; res.isErr || !strings.Contains(res.text, `"handed_back":true`) {
		t.Fatalf("the link's hand-back: %s", res.text)
	}

	// (c) A bot wall, withheld; the link holder's hand-back keeps it so.
	if text, isErr := r.call(t, "browser_navigate", map[string]any{"url": r.site.URL + "/wall"}); !isErr || !strings.Contains(text, "bot_wall") {
		t.Fatalf("the wall was not withheld: %s", text)
	}
	u, done = r.takeoverLink(t, a, "solve the wall")
	openLink(t, r, u).end(t, true)
	if res := <-done; res.isErr || !strings.Contains(res.text, `"handed_back":true`) {
		t.Fatalf("the link's hand-back on the wall: %s", res.text)
	}
	if text, isErr := r.call(t, "browser_read", map[string]any{}); !isErr || !strings.Contains(text, "bot_wall") || strings.Contains(text, "wall-text") {
		t.Fatalf("a link holder's hand-back released the withheld wall: %s", text)
	}
	// An operator's hand-back does.
	done = r.callAsync(t, "browser_request_takeover", map[string]any{"reason": "operator, solve the wall", "timeout_s": 300})
	a.next(t)
	a.answers <- &sdk.ElicitResult{Action: "decline"}
	tk := waitTakeover(t, r.h.Desk())
	must(t, r.h.Desk().EndTakeover(tk.ID, true, operator.Actor{Kind: operator.ActorOperator, Name: "olivia"}))
	<-done
	if text := r.mustCall(t, "browser_read", map[string]any{}); !strings.Contains(text, "wall-text") {
		t.Fatalf("after an operator's hand-back: %s", text)
	}
}

// waitApproval waits (on the desk's notifications) for one pending
// console approval.
func waitApproval(t *testing.T, d *operator.Desk) operator.Approval {
	t.Helper()
	var as []operator.Approval
	if !testkit.Await(d.Subscribe, 60*time.Second, func() bool { as = d.Approvals(); return len(as) == 1 }) {
		t.Fatal("no approval became pending")
	}
	return as[0]
}

// waitTakeover waits for one pending takeover.
func waitTakeover(t *testing.T, d *operator.Desk) operator.Takeover {
	t.Helper()
	var ts []operator.Takeover
	if !testkit.Await(d.Subscribe, 60*time.Second, func() bool { ts = d.Takeovers(); return len(ts) == 1 }) {
		t.Fatal("no takeover became pending")
	}
	return ts[0]
}
