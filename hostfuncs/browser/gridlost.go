package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/grid"
)

// A grid node lost mid-session.
//
// A node that dies does not close the CDP connection the hub relays: the
// hub keeps the client's end open, so Playwright waits on a browser that
// is gone until its own timeout (a navigate: navigation_timeout). The
// host therefore watches the node while a call is under way on a grid
// session (gridLink.watch, from await): every gridWatchEvery it asks the
// hub to relay a WebDriver command to the session that touches nothing
// (its timeouts). A live node answers; a dead one makes the hub answer
// "Unable to execute request for an existing session" (the node does not
// answer it) and, once the hub dropped the node, "invalid session id".
// Two such answers in a row mark the node lost, and the call under way
// returns browser_crashed naming it at once.
//
// The call that was under way when the host saw the loss, and the next
// call on the session, answer browser_crashed naming the node (lostNode
// keeps it for the next one): an agent that did not read the first answer
// (a call it gave up on, or made beside it) learns it from its next call,
// not only from a warning on a fresh session. The call after opens a fresh
// session on a live node, its result saying the previous one crashed and
// why.

// The hub is not the node: a hub that stops closes every CDP connection it
// relays, and a hub that restarts answers "invalid session id" for
// sessions its nodes still run. Before blaming the node, the host asks the
// hub and the node (lossCause); when the hub is to blame the answer says
// so, and the host ends the session at its node itself (gridLink.end), so
// the browser it can no longer drive does not hold the slot until the
// node's own session timeout.

// gridLink is what ties a session to its grid browser: the node and the
// WebDriver session on the hub, and gone, closed when the node is lost.
type gridLink struct {
	hub, node, id string
	life          context.Context
	log           *slog.Logger
	gone          chan struct{}
	goneOnce      sync.Once
	endOnce       sync.Once
	// byHub is set, before gone is closed, when the hub (stopped or
	// restarted), not the node, lost the browser: the node-loss report
	// says which (GridReport.LostCause).
	byHub atomic.Bool
}

// hubSeen is an answer already read from the hub's /status (err nil: it
// answered), so that naming a loss does not ask the hub a second time.
type hubSeen struct{ err error }

// gridWatchEvery is how often a call under way on a grid session asks the
// hub whether its node still answers. The probe is one small request to
// the hub; a call shorter than this makes none.
const gridWatchEvery = 2 * time.Second

// gridMisses is how many failed probes in a row mark the node lost: one
// could be a moment the hub could not reach a live node.
const gridMisses = 2

// markNodeLost marks ss crashed because its grid node is gone: every wait
// on it (await) ends with browser_crashed naming the node. A session being
// closed is not lost (closing its browser disconnects it too).
func (ss *session) markNodeLost() { ss.markLost(nil) }

// markLost is markNodeLost with the hub's answer to /status when the
// caller already read it (nil: lossCause reads it).
func (ss *session) markLost(seen *hubSeen) {
	g := ss.grid
	if g == nil || ss.closing.Load() || ss.nodeLost() {
		return
	}
	why, hub := g.lossCause(seen)
	if ss.closing.Load() {
		return
	}
	// The lost node (or hub) is the cause whatever was seen first (a tab's
	// crash, the browser going away): the reason names it.
	ss.crashWhy.Store(why)
	ss.markCrashed(why)
	g.goneOnce.Do(func() {
		g.byHub.Store(hub)
		close(g.gone)
	})
	if hub {
		// The browser may still run on its node, holding the slot, with no
		// way for the host to drive it: end it there now.
		go g.end()
	}
}

// lossCause says why the host lost g's browser, within a few seconds: the
// hub does not answer (stopped, restarting), the hub answers but no longer
// knows the session that its node still runs (it restarted), or the node
// is gone. hub reports the first two: the node is not to blame. seen,
// when set, is the hub's answer the caller already had.
func (g *gridLink) lossCause(seen *hubSeen) (why string, hub bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if seen == nil {
		_, err := ReadGridStatus(ctx, g.hub)
		seen = &hubSeen{err}
	}
	if seen.err != nil {
		return fmt.Sprintf("the Selenium Grid hub at %s does not answer (it stopped or is restarting) and the host lost its connection to the browser on node %s, which it ended there; not a fault of the node", g.hub, g.node), true
	}
	if g.nodeHolds(ctx) {
		return fmt.Sprintf("the Selenium Grid hub at %s restarted and no longer knows this session; its browser on node %s was ended; not a fault of the node", g.hub, g.node), true
	}
	return "the grid node " + g.node + " was lost", false
}

// nodeHolds reports whether g's node answers its own /status and lists
// g's session in a slot.
func (g *gridLink) nodeHolds(ctx context.Context) bool {
	if !strings.HasPrefix(g.node, "http") || g.id == "" {
		return false
	}
	resp, err := grid.Get(ctx, g.node, "/status")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var st struct {
		Value struct {
			Node struct {
				Slots []struct {
					Session *struct {
						SessionID string `json:"sessionId"`
					} `json:"session"`
				} `json:"slots"`
			} `json:"node"`
		} `json:"value"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&st) != nil {
		return false
	}
	for _, sl := range st.Value.Node.Slots {
		if sl.Session != nil && sl.Session.SessionID == g.id {
			return true
		}
	}
	return false
}

// nodeLost reports whether ss ran on a grid node marked lost.
func (ss *session) nodeLost() bool {
	if ss.grid == nil {
		return false
	}
	select {
	case <-ss.grid.gone:
		return true
	default:
		return false
	}
}

// watch probes ss's node until stop is called or the node is lost.
func (g *gridLink) watch(ss *session) (stop func()) {
	ctx, cancel := context.WithCancel(g.life)
	go func() {
		t := time.NewTicker(gridWatchEvery)
		defer t.Stop()
		misses := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-g.gone:
				return
			case <-t.C:
			}
			switch g.probe(ctx) {
			case nodeAnswers:
				misses = 0
			case nodeGone:
				if misses++; misses >= gridMisses {
					ss.markNodeLost()
					return
				}
			}
		}
	}()
	return cancel
}

// probeAnswer is what a probe of a grid session learned.
type probeAnswer int

const (
	nodeUnknown probeAnswer = iota // no answer from the hub, or one the host does not know
	nodeAnswers
	nodeGone
)

// probe asks the hub to relay GET /session/ID/timeouts to the session's
// node (within 5 s): chromedriver answers it from its own state, without
// touching the browser.
func (g *gridLink) probe(ctx context.Context) probeAnswer {
	if g.id == "" {
		return nodeUnknown
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := grid.Get(ctx, g.hub, "/session/"+g.id+"/timeouts")
	if err != nil {
		return nodeUnknown // the hub itself does not answer: not the node's fault
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nodeAnswers
	}
	var body struct {
		Value struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		} `json:"value"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&body)
	if body.Value.Error == "invalid session id" || strings.Contains(body.Value.Message, "Unable to execute request for an existing session") {
		return nodeGone
	}
	return nodeUnknown
}

// gridNodeLost reports whether ss runs on a grid node that is gone, and
// marks it lost if so: the hub says so for its session, or (the hub not
// telling) the node does not answer its own /status and the hub does not
// list it up.
func (s *sessions) gridNodeLost(ss *session) bool {
	g := ss.grid
	if g == nil {
		return false
	}
	if ss.nodeLost() {
		return true
	}
	switch g.probe(s.life) {
	case nodeAnswers:
		return false
	case nodeGone:
		ss.markNodeLost()
		return true
	}
	if !strings.HasPrefix(g.node, "http") {
		return false
	}
	if _, err := ReadGridStatus(s.life, g.node); err == nil {
		return false
	}
	if st, err := ReadGridStatus(s.life, s.cfg.Grid); err == nil {
		for _, n := range st.Value.Nodes {
			if n.URI == g.node && n.Availability == "UP" {
				return false
			}
		}
	}
	ss.markNodeLost()
	return true
}

// gridGone reports whether ss, a grid session left with no tab, lost its
// browser rather than had its tabs closed: its connection is down, or the
// hub does not answer. seen is the hub's answer when it was asked (for
// markLost, which then does not ask again).
func (ss *session) gridGone(ctx context.Context) (gone bool, seen *hubSeen) {
	if ss.grid == nil || ss.closing.Load() {
		return false, nil
	}
	if ss.browser != nil && !ss.browser.IsConnected() {
		return true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := ReadGridStatus(ctx, ss.grid.hub)
	return err != nil, &hubSeen{err}
}

// lostWithNoTab answers a call on ss, a session left with no tab, when
// its grid browser is gone (the hub, or the node, went away and its tabs
// closed with the connection before the disconnect was told): a crash,
// named; nil when the tabs were only closed.
func (s *sessions) lostWithNoTab(ctx context.Context, ss *session) error {
	if ss.grid == nil {
		return s.localLostWithNoTab(ss)
	}
	gone, seen := ss.gridGone(ctx)
	if !gone {
		return nil
	}
	ss.markLost(seen)
	return s.crashedInFlight(ss, "its tabs closed with the grid's connection")
}

// crashedInFlight drops ss, whose browser went away while a call was
// under way, and answers that call browser_crashed. When its grid node was
// lost the next call on the session is told too (lostNode).
func (s *sessions) crashedInFlight(ss *session, what string) error {
	s.dropCrashed(ss)
	if !ss.nodeLost() {
		return abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed while %s (%s); the session was reset: call browser_navigate to start a fresh session", what, ss.crashReason())
	}
	s.mu.Lock()
	s.lostNode[ss.key] = ss.crashReason()
	s.mu.Unlock()
	return abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed while %s (%s); the session was reset and its tabs are gone: your next call on this session gets browser_crashed once more, and the call after (browser_navigate) opens a fresh session on a live node", what, ss.crashReason())
}

// errLostNode answers the call after one that saw k's grid node lost, and
// forgets it; nil when k's node was not lost. s.mu is held.
func (s *sessions) errLostNode(k sessKey) error {
	why, ok := s.lostNode[k]
	if !ok {
		return nil
	}
	delete(s.lostNode, k)
	return abi.Errorf(abi.CodeBrowserCrashed, "the browser crashed (%s) during an earlier call; the session was reset and its tabs are gone: call browser_navigate to start a fresh session on a live node", why)
}

// lostInFlight answers a navigation that failed or timed out while its
// grid node was lost (seen by the watch, or asked now on a timeout)
// browser_crashed; nil otherwise.
func (s *sessions) lostInFlight(ss *session, err error, what string) error {
	var st *stalled
	if ss.nodeLost() || (errors.As(err, &st) && st.code == abi.CodeBrowserCrashed) {
		return s.crashedInFlight(ss, what)
	}
	if pwTimeout(err) {
		return s.lostGridNode(ss, what)
	}
	return nil
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
		err := grid.Delete(g.hub, g.id)
		if err == nil {
			return
		}
		if !strings.HasPrefix(g.node, "http") {
			g.logger().Warn("ending a grid session: the hub did not, and its node is unknown", "session", g.id, "err", err)
			return
		}
		if nerr := grid.Delete(g.node, g.id); nerr != nil {
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
