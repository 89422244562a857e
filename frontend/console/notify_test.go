package console_test

import (
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// received is one post the webhook receiver got.
type received struct {
	body      []byte
	signature string
	ts        string
	at        time.Time
}

// TestNotifyWebhook: with [console.notify] set to a receiver on loopback
// (allow_loopback), a call waiting for approval on the console and a
// takeover are each posted once, in a chat webhook's shape ("text"),
// signed with HMAC-SHA256 under the secret from secret_env, with a link to
// the console; no post holds a value the agent typed, a vault value, a
// token or the page's full URL.
func TestNotifyWebhook(t *testing.T) {
	const secret, typed = "hook-secret-4f2a", "typed-secret-value-Z9"
	posts := make(chan received, 8)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		posts <- received{b, r.Header.Get(console.SignatureHeader), r.Header.Get(console.TimestampHeader), time.Now()}
	}))
	t.Cleanup(recv.Close)
	t.Setenv("WW_TEST_NOTIFY_SECRET", secret)
	r := newRigWith(t, rigOptions{console: fmt.Sprintf(`[console.notify]
url = %q
secret_env = "WW_TEST_NOTIFY_SECRET"
allow_loopback = true`, recv.URL+"/hook?k=v")})
	ctx, stop := contextWithCancel(t)
	go r.console.Notify(ctx, r.cfg.Console.Notify)
	defer stop()
	// An operator's console is open for the personality (as the state
	// stream attaches one), so asks wait on a console card.
	defer r.h.Desk().Attach("default")()

	snap := r.MustCall(t, "browser_navigate", map[string]any{"url": r.site.URL + "/login?session=tok-in-url"})
	ref := regexpRef(t, snap, `textbox "Username"`)
	t0 := time.Now()
	done := r.callAsync(t, "browser_type", map[string]any{"ref": ref, "text": typed})
	p := nextPost(t, posts, secret)
	t.Logf("agent's request to the webhook post: %s", p.at.Sub(t0).Round(time.Millisecond))
	var ping console.Ping
	must(t, json.Unmarshal(p.body, &ping))
	if ping.Kind != "approval" || ping.Tool != "browser_type" || ping.Origin != r.site.URL || !strings.Contains(ping.Text, "browser_type") ||
		!strings.HasPrefix(ping.Link, r.base+"/#approval-") || !strings.Contains(ping.Text, ping.Link) {
		t.Fatalf("the approval post: %s", p.body)
	}
	for _, secretish := range []string{typed, credPass, r.agentToken, r.opToken, secret, "tok-in-url"} {
		if strings.Contains(string(p.body), secretish) {
			t.Fatalf("the post holds %q: %s", secretish, p.body)
		}
	}
	must(t, r.h.Desk().Decide(ping.ID, decision("deny")))
	if res := <-done; !res.isErr {
		t.Fatalf("denied, the call ran: %s", res.text)
	}

	t0 = time.Now()
	done = r.callAsync(t, "browser_request_takeover", map[string]any{"reason": "type the code from the text message", "timeout_s": 60})
	p = nextPost(t, posts, secret)
	t.Logf("agent's takeover request to the webhook post: %s", p.at.Sub(t0).Round(time.Millisecond))
	must(t, json.Unmarshal(p.body, &ping))
	if ping.Kind != "takeover" || ping.Reason != "type the code from the text message" || !strings.HasPrefix(ping.Link, r.base+"/#takeover-") {
		t.Fatalf("the takeover post: %s", p.body)
	}
	must(t, r.h.Desk().EndTakeover(ping.ID, false, operator.Actor{Kind: operator.ActorOperator, Name: "test"}))
	<-done
	select {
	case extra := <-posts:
		t.Fatalf("a post more than one per request: %s", extra.body)
	default:
	}
}

// nextPost waits for the receiver's next post and checks its signature.
func nextPost(t *testing.T, posts <-chan received, secret string) received {
	t.Helper()
	select {
	case p := <-posts:
		want := console.Sign([]byte(secret), p.ts, p.body)
		if p.ts == "" || !hmac.Equal([]byte(p.signature), []byte(want)) {
			t.Fatalf("bad signature %q (want %q) on %s", p.signature, want, p.body)
		}
		if wrong := console.Sign([]byte("not-the-secret"), p.ts, p.body); wrong == p.signature {
			t.Fatal("the signature does not depend on the secret")
		}
		return p
	case <-time.After(60 * time.Second):
		t.Fatal("the webhook got nothing")
	}
	return received{}
}
