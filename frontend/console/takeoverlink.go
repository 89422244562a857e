package console

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/host"
)

// Takeover links: when a personality opts in ([personalities.P.takeover]
// via naming "client") and the agent's MCP client can open a URL (URL-mode
// elicitation), a takeover sends it a capability link to the live view of
// that one session. The client may be the agent's own process, so whoever
// holds the link is treated as the agent, never as an operator: its live
// view conceals the session's secrets as the agent's screenshot does, its
// input runs under the personality's approval policy, and its hand-back
// releases no withheld page (host.Actor; the desk decides). The link
// is the only credential, so it is narrow:
//
//   - one session of one personality, one takeover: it opens that live
//     view and hands back or cancels that takeover, nothing else (no
//     sessions list, no other session, no approvals, no event log);
//   - single use: the first GET of /t/{token} spends the token and gives
//     that browser a cookie (HttpOnly, SameSite=Strict, path /t/) holding
//     a second secret, which the page's requests carry;
//   - expiring at the takeover's deadline, and revoked when the takeover
//     ends (hand-back, cancel, timeout, closed session): its page and
//     live view stop at once;
//   - only sha256 digests of either secret are kept.
//
// It needs no operator token, for this page only.

const linkCookie = "ww_takeover"

// capLink is one takeover link.
type capLink struct {
	t       host.Takeover
	expires time.Time
	spent   bool
	viewer  [sha256.Size]byte // digest of the cookie secret, once spent
	revoked chan struct{}
}

// links holds the takeover links of a console.
type links struct {
	mu     sync.Mutex
	byLink map[[sha256.Size]byte]*capLink
	// byView maps the cookie secret's digest to its link.
	byView map[[sha256.Size]byte]*capLink
}

// Advertise tells the console the URL it is reached at (scheme, host and
// port, like "http://127.0.0.1:8931"): from then on a takeover asked by an
// agent whose MCP client opens URLs sends it a link there.
func (c *Console) Advertise(base string) {
	c.base.set(strings.TrimSuffix(base, "/"))
	c.desk.SetLinker(c)
}

// selfURL is the console's own URL (Advertise), for takeover links and
// the links of pings.
type selfURL struct{ p atomic.Pointer[string] }

func (u *selfURL) set(base string) { u.p.Store(&base) }

// get is the URL, "" when not known.
func (u *selfURL) get() string {
	if b := u.p.Load(); b != nil {
		return *b
	}
	return ""
}

// card is the console URL of a card under path: the console's page with
// the card's anchor (the page asks for a login first).
func (u *selfURL) card(path, kind, id string) string {
	base := u.get()
	if base == "" {
		return ""
	}
	return base + path + "/#" + kind + "-" + id
}

// TakeoverLink mints the link of takeover t (host.TakeoverLinker).
func (c *Console) TakeoverLink(t host.Takeover, expires time.Time) (string, func(), error) {
	base := c.base.get()
	if base == "" {
		return "", nil, fmt.Errorf("the console does not know its own URL (Advertise)")
	}
	token := rand.Text() + rand.Text()
	l := &capLink{t: t, expires: expires, revoked: make(chan struct{})}
	sum := sha256.Sum256([]byte(token))
	c.links.mu.Lock()
	c.links.byLink[sum] = l
	c.links.mu.Unlock()
	var once sync.Once
	revoke := func() {
		once.Do(func() {
			c.links.mu.Lock()
			delete(c.links.byLink, sum)
			delete(c.links.byView, l.viewer)
			c.links.mu.Unlock()
			close(l.revoked)
		})
	}
	return base + c.opts.Path + "/t/" + token, revoke, nil
}

// openLink is GET /t/{token}: spends the token and serves the takeover
// page with its cookie. A spent, expired or revoked token gets 410.
func (c *Console) openLink(w http.ResponseWriter, r *http.Request, static fs.FS) {
	sum := sha256.Sum256([]byte(r.PathValue("token")))
	viewer := rand.Text() + rand.Text()
	now := time.Now()
	c.links.mu.Lock()
	l := c.links.byLink[sum]
	ok := l != nil && !l.spent && now.Before(l.expires)
	if ok {
		l.spent = true
		l.viewer = sha256.Sum256([]byte(viewer))
		c.links.byView[l.viewer] = l
		delete(c.links.byLink, sum)
	}
	c.links.mu.Unlock()
	if !ok {
		c.log.Warn("console: takeover link refused (spent, expired, revoked or unknown)", "remote", r.RemoteAddr)
		c.page(w, []byte(`<!doctype html><meta charset="utf-8"><title>Link not valid</title><p id="gone">This takeover link was already used, has expired, or the takeover is over.</p>`), http.StatusGone)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: linkCookie, Value: viewer, Path: c.opts.Path + "/t/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, Expires: l.expires})
	c.log.Info("console: takeover link opened", "personality", l.t.Personality, "session", l.t.Session, "remote", r.RemoteAddr)
	b, _ := fs.ReadFile(static, "takeover.html")
	c.page(w, b, http.StatusOK)
}

// viewer is the live link of r's cookie, nil when none (spent by
// another browser, revoked, expired).
func (ls *links) viewer(r *http.Request) *capLink {
	ck, err := r.Cookie(linkCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(ck.Value))
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.byView[sum]
	if l == nil || time.Now().After(l.expires) {
		return nil
	}
	return l
}

// linkHandlers serves the takeover page's requests: its state, its live
// view and its hand-back or cancel. Each needs the cookie of a live link;
// the state-changing ones come from the console's own origin.
func (c *Console) linkHandlers(mux *http.ServeMux, static fs.FS) {
	p := c.opts.Path + "/t/"
	mux.HandleFunc("GET "+p+"{token}", func(w http.ResponseWriter, r *http.Request) { c.openLink(w, r, static) })
	for _, f := range []string{"takeover.js", "app.css"} {
		mux.HandleFunc("GET "+p+"static/"+f, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "no-store")
			http.ServeFileFS(w, r, static, f)
		})
	}
	withLink := func(fn func(http.ResponseWriter, *http.Request, *capLink)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if stateChanging(r) && !sameOrigin(r) {
				http.Error(w, "403 forbidden: requests must come from the takeover page", http.StatusForbidden)
				return
			}
			l := c.links.viewer(r)
			if l == nil {
				http.Error(w, "410 gone: this takeover link is over", http.StatusGone)
				return
			}
			fn(w, r, l)
		}
	}
	mux.HandleFunc("GET "+p+"api/state", withLink(func(w http.ResponseWriter, r *http.Request, l *capLink) {
		writeJSON(w, http.StatusOK, map[string]any{"takeover": l.t, "now": time.Now()})
	}))
	mux.HandleFunc("GET "+p+"api/live", withLink(func(w http.ResponseWriter, r *http.Request, l *capLink) {
		c.liveView(w, r, l.t.Personality, l.t.Session, host.Actor{Kind: host.ActorLink}, l.revoked)
	}))
	mux.HandleFunc("POST "+p+"api/end", withLink(func(w http.ResponseWriter, r *http.Request, l *capLink) {
		var req struct {
			HandBack bool `json:"hand_back"`
		}
		if !readJSON(w, r, &req) {
			return
		}
		// The link's holder is not an operator: its hand-back gives the
		// session back as it is, a withheld page staying withheld.
		if err := c.desk.EndTakeover(l.t.ID, req.HandBack, host.Actor{Kind: host.ActorLink}); err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}))
}
