package browser

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/wasmwright/wasmwright/abi"
)

// A grid session's WebDriver side: asking the hub for a browser, giving
// the request up at browser.grid_queue_timeout, and ending the session.
//
// The host posts the new-session request itself rather than through
// Playwright's Selenium launch: that launch waits as one request for the
// queue and the node's start, cannot be withdrawn (a request whose client
// gave up stays in the hub's queue and later takes a slot nobody uses),
// and turns the hub's own "New session request timed out" into a plain
// failure. Here each request carries a tag of its own (gridRequestCap);
// at grid_queue_timeout the host looks for it in the hub's queue and, if
// no node took it yet, withdraws it and answers resource_limit, whatever
// the hub's --session-request-timeout. A request a node took gets
// gridStartAllowance more for the browser to start. The browser is then
// driven over CDP through the hub (the session's se:cdp endpoint), as
// Playwright's launch would.

// gridRequestCap tags a new-session request so the host finds it in the
// hub's queue. chromedriver ignores an extension capability (a name with
// a colon) it does not know.
const gridRequestCap = "wasmwright:request"

// gridHTTP is the client of the hub and node requests: each has a
// deadline of its own.
var gridHTTP = &http.Client{}

// gridSession is what the hub answered a new-session request with.
type gridSession struct {
	id, cdp string
}

// gridNewSession asks the hub for a browser and waits for it: up to
// GridQueueTimeout in the queue (then the request is withdrawn and the
// answer is resource_limit), then gridStartAllowance for a node that took
// it to start the browser. The call's ctx ending withdraws it too.
func (s *launcher) gridNewSession(ctx context.Context) (*gridSession, error) {
	raw, err := s.gridCapabilities()
	if err != nil {
		return nil, err
	}
	var caps map[string]any
	if err := json.Unmarshal([]byte(raw), &caps); err != nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "browser.grid_capabilities: %v", err)
	}
	tag := randomTag()
	caps[gridRequestCap] = tag
	body, _ := json.Marshal(map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}})
	queue := s.cfg.GridQueueTimeout.D()
	rctx, cancel := context.WithTimeout(ctx, queue+gridStartAllowance)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	var queuedOut atomic.Bool
	withdraw := func() {
		if s.gridWithdraw(tag) {
			queuedOut.Store(true)
			cancel()
		}
	}
	t := time.AfterFunc(queue, withdraw)
	defer t.Stop()
	defer context.AfterFunc(ctx, func() { s.gridWithdraw(tag) })()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, gridURL(s.cfg.Grid, "/session"), bytes.NewReader(body))
	if err != nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "browser.grid = %q: %v", s.cfg.Grid, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := gridHTTP.Do(req)
	switch {
	case ctx.Err() != nil:
		// The caller gave up: its withdrawal may have made the hub answer
		// before the transport saw the cancellation, so an answer here
		// is the withdrawal's, not a full grid.
		if resp != nil {
			resp.Body.Close()
		}
		return nil, ctx.Err()
	case queuedOut.Load():
		if resp != nil {
			resp.Body.Close()
		}
		return nil, s.gridFull()
	case err != nil && rctx.Err() != nil:
		return nil, abi.Errorf(abi.CodeNotAvailable, "a Selenium Grid node took the session but did not start the browser within %s: retry; if it persists, ask the operator to check the nodes of %s", gridStartAllowance, s.cfg.Grid)
	case err != nil:
		return nil, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) does not answer (%s): check that the hub runs and this host reaches it", s.cfg.Grid, cleanMsg(err.Error()))
	}
	defer resp.Body.Close()
	gs, err := s.gridAnswer(resp)
	if err != nil {
		return nil, err
	}
	if gs.cdp == "" {
		(&gridLink{hub: s.cfg.Grid, id: gs.id, log: s.log}).end()
		return nil, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s gave a session without a CDP endpoint (se:cdp): the host needs Selenium Grid 4 with Chromium nodes", s.cfg.Grid)
	}
	return gs, nil
}

// gridAnswer reads the hub's answer to a new-session request.
func (s *launcher) gridAnswer(resp *http.Response) (*gridSession, error) {
	var body struct {
		Value struct {
			SessionID    string         `json:"sessionId"`
			Capabilities map[string]any `json:"capabilities"`
			Error        string         `json:"error"`
			Message      string         `json:"message"`
		} `json:"value"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&body); err != nil {
		return nil, abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) answered %s, not WebDriver JSON: check that browser.grid names a Selenium Grid 4 hub or router", s.cfg.Grid, resp.Status)
	}
	v := body.Value
	if resp.StatusCode/100 != 2 || v.SessionID == "" {
		return nil, s.gridRefusal(v.Error, v.Message)
	}
	cdp, _ := v.Capabilities["se:cdp"].(string)
	return &gridSession{id: v.SessionID, cdp: hubCDP(s.cfg.Grid, cdp)}, nil
}

// gridRefusal is the answer to a hub's refusal of a new session: its own
// queue timeout is a full grid, as the host's is; anything else is named.
func (s *launcher) gridRefusal(code, msg string) error {
	if strings.Contains(msg, "New session request timed out") || strings.Contains(msg, gridWithdrawn) {
		return s.gridFull()
	}
	return abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) gave no browser: %s: %s", s.cfg.Grid, code, firstLine(msg))
}

// gridFull is a full grid's answer.
func (s *launcher) gridFull() error {
	return abi.Errorf(abi.CodeResourceLimit, "no grid node took the session within browser.grid_queue_timeout (%s): every slot of the Selenium Grid at %s is busy; retry later, close sessions you no longer need, or ask the operator to add nodes or raise browser.grid_queue_timeout", s.cfg.GridQueueTimeout.D(), s.cfg.Grid)
}

// gridWithdrawn is the reason the host gives the hub for a request it
// withdraws; the hub passes it back in the request's answer.
const gridWithdrawn = "wasmwright withdrew the request at browser.grid_queue_timeout"

// gridWithdraw takes the request tagged tag out of the hub's queue,
// reporting whether it was still there (no node took it). The hub's
// queue answers the request's client with the host's reason. A hub run
// with --registration-secret wants it (browser.grid_registration_secret);
// without it the request is only given up on this side, and the hub keeps
// it until its own --session-request-timeout.
func (s *launcher) gridWithdraw(tag string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, err := s.gridQueued(ctx, tag)
	if err != nil {
		s.log.Warn("reading the Selenium Grid's queue: giving up the session request on this side", "grid", s.cfg.Grid, "err", err)
		return true
	}
	if id == "" {
		return false
	}
	msg, _ := json.Marshal(gridWithdrawn)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, gridURL(s.cfg.Grid, "/se/grid/newsessionqueue/session/"+url.PathEscape(id)+"/failure"), bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("X-REGISTRATION-SECRET", s.cfg.GridRegistrationSecret)
	resp, err := gridHTTP.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode/100 != 2 {
		why := fmt.Sprint(err)
		if resp != nil {
			why = resp.Status
		}
		s.log.Warn("the Selenium Grid hub did not let the host withdraw its session request: it stays queued until the hub's --session-request-timeout, and a session started for it then holds a slot until the node's --session-timeout; set browser.grid_registration_secret to the hub's --registration-secret (from the environment: \"${GRID_SECRET}\")", "grid", s.cfg.Grid, "answer", why)
	}
	return true
}

// gridQueued is the hub's id of the queued request tagged tag, or "".
func (s *launcher) gridQueued(ctx context.Context, tag string) (string, error) {
	resp, err := gridGet(ctx, s.cfg.Grid, "/se/grid/newsessionqueue/queue")
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
			if c[gridRequestCap] == tag {
				return r.RequestID, nil
			}
		}
	}
	return "", nil
}

// end ends the WebDriver session: through the hub, or, when the hub does
// not answer or no longer knows it (it restarted), at the node itself,
// whose WebDriver endpoint takes the same DELETE; so a browser the host
// can no longer drive does not hold the node's slot until the node's own
// session timeout. Once per link; within a few seconds.
func (g *gridLink) end() {
	if g.id == "" {
		return
	}
	g.endOnce.Do(func() {
		err := gridDelete(g.hub, g.id)
		if err == nil {
			return
		}
		if !strings.HasPrefix(g.node, "http") {
			g.logger().Warn("ending a grid session: the hub did not, and its node is unknown", "session", g.id, "err", err)
			return
		}
		if nerr := gridDelete(g.node, g.id); nerr != nil {
			g.logger().Warn("ending a grid session: neither the hub nor its node did; the node frees the slot at its --session-timeout", "session", g.id, "node", g.node, "hub", err, "err", nerr)
			return
		}
		g.logger().Info("ended a grid session at its node (the hub did not)", "session", g.id, "node", g.node, "hub", err)
	})
}

func (g *gridLink) logger() *slog.Logger {
	if g.log == nil {
		return slog.Default()
	}
	return g.log
}

// gridDelete sends DELETE /session/ID to base (a hub or a node).
func gridDelete(base, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, gridURL(base, "/session/"+url.PathEscape(id)), nil)
	if err != nil {
		return err
	}
	resp, err := gridHTTP.Do(req)
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

func gridURL(base, path string) string { return strings.TrimSuffix(base, "/") + path }

// gridGet sends GET base+path (a hub's or a node's JSON endpoint), bounded
// by ctx.
func gridGet(ctx context.Context, base, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, gridURL(base, path), nil)
	if err != nil {
		return nil, err
	}
	return gridHTTP.Do(req)
}

func randomTag() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
