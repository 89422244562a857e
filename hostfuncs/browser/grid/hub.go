// Package grid is the WebDriver side of a Selenium Grid 4 hub, as the
// browser uses it: asking the hub for a browser (Hub.NewSession), giving
// the request up at browser.grid_queue_timeout, ending a session at the
// hub or its node (Delete), and reading the hub's and nodes' JSON
// endpoints (Get). It knows nothing of sessions or Playwright: the browser
// gives it the capabilities to ask for and drives what it answers over CDP.
package grid

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
)

// Hub is a Selenium Grid hub as the host's config names it.
type Hub struct {
	URL          string        // browser.grid
	QueueTimeout time.Duration // browser.grid_queue_timeout
	Secret       string        // browser.grid_registration_secret
	Log          *slog.Logger
	// Life ends with the host: a request still queued then is given up.
	Life context.Context
}

// Session is what the hub answered a new-session request with: the
// WebDriver session's id and the CDP endpoint the host dials.
type Session struct {
	ID, CDP string
}

// StartAllowance is the time a node has to start a browser once it
// took the session, on top of the queue timeout: a loaded node takes
// seconds (15 s seen on 2 busy cores) to start Chromium through
// chromedriver.
const StartAllowance = 60 * time.Second

// A grid session's WebDriver side: asking the hub for a browser, giving
// the request up at browser.grid_queue_timeout, and ending the session.
//
// The host posts the new-session request itself rather than through
// Playwright's Selenium launch: that launch waits as one request for the
// queue and the node's start, cannot be withdrawn (a request whose client
// gave up stays in the hub's queue and later takes a slot nobody uses),
// and turns the hub's own "New session request timed out" into a plain
// failure. Here each request carries a tag of its own (requestCap);
// at grid_queue_timeout the host looks for it in the hub's queue and, if
// no node took it yet, withdraws it and answers resource_limit, whatever
// the hub's --session-request-timeout. A request a node took gets
// StartAllowance more for the browser to start. The browser is then
// driven over CDP through the hub (the session's se:cdp endpoint), as
// Playwright's launch would.

// requestCap tags a new-session request so the host finds it in the
// hub's queue. chromedriver ignores an extension capability (a name with
// a colon) it does not know.
const requestCap = "wasmwright:request"

// client is the client of the hub and node requests: each has a
// deadline of its own.
var client = &http.Client{}

// NewSession asks the hub for a browser with caps and waits for it: up
// to QueueTimeout in the queue (then the request is withdrawn and the
// answer is resource_limit), then StartAllowance for a node that took it
// to start the browser. The call's ctx ending withdraws it too.
func (h Hub) NewSession(ctx context.Context, caps map[string]any) (Session, error) {
	tag := rand.Text()
	caps[requestCap] = tag
	body, _ := json.Marshal(map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}})
	queue := h.QueueTimeout
	rctx, cancel := context.WithTimeout(ctx, queue+StartAllowance)
	defer cancel()
	defer context.AfterFunc(h.Life, cancel)()
	var queuedOut atomic.Bool
	withdraw := func() {
		if h.withdraw(tag) {
			queuedOut.Store(true)
			cancel()
		}
	}
	t := time.AfterFunc(queue, withdraw)
	defer t.Stop()
	defer context.AfterFunc(ctx, func() { h.withdraw(tag) })()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, join(h.URL, "/session"), bytes.NewReader(body))
	if err != nil {
		return Session{}, abi.Errorf(abi.CodeInputInvalid, "browser.grid = %q: %v", h.URL, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := client.Do(req)
	switch {
	case ctx.Err() != nil:
		// The caller gave up: its withdrawal may have made the hub answer
		// before the transport saw the cancellation, so an answer here
		// is the withdrawal's, not a full grid.
		if resp != nil {
			resp.Body.Close()
		}
		return Session{}, ctx.Err()
	case queuedOut.Load():
		if resp != nil {
			resp.Body.Close()
		}
		return Session{}, h.full()
	case err != nil && rctx.Err() != nil:
		return Session{}, abi.Errorf(abi.CodeNotAvailable, "a Selenium Grid node took the session but did not start the browser within %s: retry; if it persists, ask the operator to check the nodes of %s", StartAllowance, h.URL)
	case err != nil:
		return Session{}, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) does not answer (%s): check that the hub runs and this host reaches it", h.URL, firstLine(err.Error()))
	}
	defer resp.Body.Close()
	gs, err := h.answer(resp)
	if err != nil {
		return Session{}, err
	}
	if gs.CDP == "" {
		if err := Delete(h.URL, gs.ID); err != nil {
			h.Log.Warn("ending a grid session: the hub did not, and its node is unknown", "session", gs.ID, "err", err)
		}
		return Session{}, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s gave a session without a CDP endpoint (se:cdp): the host needs Selenium Grid 4 with Chromium nodes", h.URL)
	}
	return gs, nil
}

// answer reads the hub's answer to a new-session request.
func (h Hub) answer(resp *http.Response) (Session, error) {
	var body struct {
		Value struct {
			SessionID    string         `json:"sessionId"`
			Capabilities map[string]any `json:"capabilities"`
			Error        string         `json:"error"`
			Message      string         `json:"message"`
		} `json:"value"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&body); err != nil {
		return Session{}, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) answered %s, not WebDriver JSON: check that browser.grid names a Selenium Grid 4 hub or router", h.URL, resp.Status)
	}
	v := body.Value
	if resp.StatusCode/100 != 2 || v.SessionID == "" {
		return Session{}, h.refusal(v.Error, v.Message)
	}
	cdp, _ := v.Capabilities["se:cdp"].(string)
	return Session{ID: v.SessionID, CDP: hubCDP(h.URL, cdp)}, nil
}

// refusal is the answer to a hub's refusal of a new session: its own
// queue timeout is a full grid, as the host's is; anything else is named.
func (h Hub) refusal(code, msg string) error {
	if strings.Contains(msg, "New session request timed out") || strings.Contains(msg, withdrawn) {
		return h.full()
	}
	return abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) gave no browser: %s: %s", h.URL, code, firstLine(msg))
}

// full is a full grid's answer.
func (h Hub) full() error {
	return abi.Errorf(abi.CodeResourceLimit, "no grid node took the session within browser.grid_queue_timeout (%s): every slot of the Selenium Grid at %s is busy; retry later, close sessions you no longer need, or ask the operator to add nodes or raise browser.grid_queue_timeout", h.QueueTimeout, h.URL)
}

// withdrawn is the reason the host gives the hub for a request it
// withdraws; the hub passes it back in the request's answer.
const withdrawn = "wasmwright withdrew the request at browser.grid_queue_timeout"

// withdraw takes the request tagged tag out of the hub's queue,
// reporting whether it was still there (no node took it). The hub's
// queue answers the request's client with the host's reason. A hub run
// with --registration-secret wants it (browser.grid_registration_secret);
// without it the request is only given up on this side, and the hub keeps
// it until its own --session-request-timeout.
func (h Hub) withdraw(tag string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, err := h.queued(ctx, tag)
	if err != nil {
		h.Log.Warn("reading the Selenium Grid's queue: giving up the session request on this side", "grid", h.URL, "err", err)
		return true
	}
	if id == "" {
		return false
	}
	msg, _ := json.Marshal(withdrawn)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, join(h.URL, "/se/grid/newsessionqueue/session/"+url.PathEscape(id)+"/failure"), bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("X-REGISTRATION-SECRET", h.Secret)
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode/100 != 2 {
		why := fmt.Sprint(err)
		if resp != nil {
			why = resp.Status
		}
		h.Log.Warn("the Selenium Grid hub did not let the host withdraw its session request: it stays queued until the hub's --session-request-timeout, and a session started for it then holds a slot until the node's --session-timeout; set browser.grid_registration_secret to the hub's --registration-secret (from the environment: \"${GRID_SECRET}\")", "grid", h.URL, "answer", why)
	}
	return true
}

// queued is the hub's id of the queued request tagged tag, or "".
func (h Hub) queued(ctx context.Context, tag string) (string, error) {
	resp, err := Get(ctx, h.URL, "/se/grid/newsessionqueue/queue")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var q struct {
		Value []struct {
			RequestID    string           `json:"requestId"`
			Capabilities []map[string]any `json:"capabilities"`
		} `json:"value"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&q); err != nil {
		return "", fmt.Errorf("the queue's answer (%s): %w", resp.Status, err)
	}
	for _, r := range q.Value {
		for _, c := range r.Capabilities {
			if c[requestCap] == tag {
				return r.RequestID, nil
			}
		}
	}
	return "", nil
}

// Delete sends DELETE /session/ID to base (a hub or a node).
func Delete(base, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, join(base, "/session/"+url.PathEscape(id)), nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		return errors.New(resp.Status + ": " + firstLine(string(b)))
	}
	return nil
}

// hubCDP is a session's se:cdp endpoint as this host dials it: a hub
// that names itself localhost is reached where browser.grid says.
func hubCDP(grid, cdp string) string {
	u, err := url.Parse(cdp)
	if err != nil || cdp == "" {
		return ""
	}
	if h := u.Hostname(); h == "localhost" || h == "127.0.0.1" {
		if g, err := url.Parse(grid); err == nil {
			u.Host = g.Hostname() + ":" + u.Port()
		}
	}
	return u.String()
}

func join(base, path string) string { return strings.TrimSuffix(base, "/") + path }

// Get sends GET base+path (a hub's or a node's JSON endpoint), bounded
// by ctx.
func Get(ctx context.Context, base, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, join(base, path), nil)
	if err != nil {
		return nil, err
	}
	return client.Do(req)
}

// firstLine is the first line of an answer or error, at most 500 bytes.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	for len(l) > 500 {
		_, size := utf8.DecodeLastRuneInString(l)
		l = l[:len(l)-size]
	}
	return l
}
