// Package operator is the human side of the kernel: takeovers (an agent
// hands its browser session to a person and waits for the hand-back),
// approvals (a call waits for an operator's decision), operator presence
// (whether a person is watching a personality, which makes its calls
// attended) and operator control of a page (while a person drives a page,
// agent tools that change it are refused).
//
// The Desk holds that state; the web console (frontend/console) is the surface
// operators use, and ww_takeover_request (HostFuncs) is how a plugin asks.
// Nothing here waits without a bound: a takeover ends at its timeout, an
// approval at its own, and every wait ends when the session closes or the
// caller's context is done.
package operator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Browser is what the desk needs of the browser service.
type Browser interface {
	// SetDriving marks a session as driven by a human: the idle sweeper
	// and LRU eviction leave it alone.
	SetDriving(personality, session string, on bool)
	// Raise brings the session's current tab to the front (a headed
	// window is raised).
	Raise(personality, session string)
	// PageURL is the URL of the session's current tab, "" when none.
	PageURL(personality, session string) string
	// HandedBack is told when a logged-in operator hands the session
	// back: a page withheld from the agent (a bot wall) is served again,
	// the operator answering for it. Never told of a link holder's
	// hand-back: whoever holds a link is treated as the agent.
	HandedBack(personality, session string)
}

// Options configure a Desk.
type Options struct {
	Logger *slog.Logger
	// Emit records an event (takeover and approval lifecycle). Never a
	// value: reasons and tool names only.
	Emit func(hostfuncs.Event)
	// Browser, when set, is told of takeovers.
	Browser Browser
	// Mask hides a session's secrets in the page's and the agent's words
	// before a person is shown them (text.go). nil: no secrets known.
	Mask Masker
	// Now is the clock (tests). Default time.Now.
	Now func() time.Time
}

// Desk is the operator state of one host. It is safe for concurrent use.
type Desk struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	takeovers map[sessKey]*Takeover
	approvals map[string]*Approval
	presence  map[string]int // personality → consoles connected for it ("*" for all)
	control   map[sessKey]int
	subs      map[chan struct{}]bool
	closed    bool
	linker    Linker
	clients   map[sessKey]string // the MCP client's name of a session (NameSession)
	// sessionGrants are the grants the agent's client made in a session
	// (GrantForSession): forgotten when the session closes.
	sessionGrants map[sessKey][]Grant
}

type sessKey struct{ personality, session string }

// New returns an empty desk.
func New(opts Options) *Desk {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Desk{
		opts: opts, log: opts.Logger.With("service", "operator"),
		takeovers: map[sessKey]*Takeover{}, approvals: map[string]*Approval{},
		presence: map[string]int{}, control: map[sessKey]int{}, subs: map[chan struct{}]bool{},
		clients: map[sessKey]string{}, sessionGrants: map[sessKey][]Grant{},
	}
}

// Takeover is one pending takeover, as the console shows it.
type Takeover struct {
	ID          string    `json:"id"`
	Personality string    `json:"personality"`
	Session     string    `json:"session"`
	Reason      string    `json:"reason"`
	Started     time.Time `json:"started"`
	Deadline    time.Time `json:"deadline"`

	done chan takeoverEnd
}

type takeoverEnd struct {
	outcome string // abi.TakeoverUser, abi.TakeoverCancel, or "closed"
	by      Actor
}

func newID() string {
	var b [9]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ClampTimeout turns a requested takeover timeout in seconds into the one
// used: the default for 0 or less, at most abi.TakeoverMaxS.
func ClampTimeout(s int) time.Duration {
	switch {
	case s <= 0:
		s = abi.TakeoverDefaultS
	case s > abi.TakeoverMaxS:
		s = abi.TakeoverMaxS
	}
	return time.Duration(s) * time.Second
}

// RequestTakeover hands (personality, session) to an operator and waits
// until one hands it back or cancels, the timeout passes, the session
// closes or ctx is done. A session already held is refused. The hold is
// released on every path.
func (d *Desk) RequestTakeover(ctx context.Context, personality, session string, req abi.TakeoverRequest) (*abi.TakeoverResponse, error) {
	reason := strings.TrimSpace(req.Reason)
	if reason == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "a takeover needs a reason: say what the human should do (for example \"solve the captcha on the login page\")")
	}
	timeout := ClampTimeout(req.TimeoutS)
	k := sessKey{personality, session}
	now := d.opts.Now()
	// The reason is the agent's words: masked before anything holds it
	// (the console, a ping, the event log, the agent's client).
	reason = d.mask(personality, session, capRunes(reason, 2000))
	t := &Takeover{ID: newID(), Personality: personality, Session: session, Reason: reason, Started: now, Deadline: now.Add(timeout), done: make(chan takeoverEnd, 1)}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, abi.Errorf(abi.CodeNotAvailable, "wasmwright is shutting down: no takeover can start")
	}
	if _, held := d.takeovers[k]; held {
		d.mu.Unlock()
		return nil, abi.Errorf(abi.CodeRefused, "a takeover of this browser session is already pending: wait for its hand-back instead of asking again")
	}
	d.takeovers[k] = t
	d.mu.Unlock()
	// The browser learns of the takeover before anyone is told it is
	// pending: a watcher woken by changed sees the session driven.
	if b := d.opts.Browser; b != nil {
		b.SetDriving(personality, session, true)
		b.Raise(personality, session)
	}
	d.changed()
	d.event("takeover.requested", personality, session, map[string]any{"id": t.ID, "reason": t.Reason, "timeout_s": int(timeout / time.Second)})
	d.log.Info("takeover requested", "personality", personality, "session", session, "timeout", timeout)
	if end := d.offerLink(ctx, t); end != nil {
		defer end()
	}

	end, unanswered := await(ctx, t.done, timeout)
	if unanswered != "" {
		end.outcome = unanswered
	}
	d.mu.Lock()
	if d.takeovers[k] == t {
		delete(d.takeovers, k)
	}
	d.mu.Unlock()
	if b := d.opts.Browser; b != nil {
		b.SetDriving(personality, session, false)
	}
	d.changed()
	d.event("takeover.ended", personality, session, map[string]any{"id": t.ID, "outcome": end.outcome, "by": end.by.String(), "ms": d.opts.Now().Sub(now).Milliseconds()})
	switch end.outcome {
	case abi.TakeoverUser, abi.TakeoverCancel:
		r := &abi.TakeoverResponse{HandedBack: end.outcome == abi.TakeoverUser, Outcome: end.outcome}
		if b := d.opts.Browser; b != nil {
			// Only a logged-in operator answers for a withheld page; a
			// link holder's hand-back gives the session back as it is.
			if r.HandedBack && end.by.Operator() {
				b.HandedBack(personality, session)
			}
			r.URL = b.PageURL(personality, session)
		}
		return r, nil
	case "timeout":
		return nil, abi.Errorf(abi.CodeExecutionFailed, "No one took over the browser within %ds. The page is unchanged; report the blockage.", int(timeout/time.Second))
	case "closed":
		return nil, abi.Errorf(abi.CodeExecutionFailed, "the browser session was closed during the takeover; nothing was handed back: start again with browser_navigate")
	}
	return nil, abi.Errorf(abi.CodeTimeout, "the takeover request was cancelled before anyone handed the browser back")
}

// offerLink sends the agent's client, when the personality opts in
// (WithTakeoverVia naming ViaClient) and the client can open a URL (MCP
// URL-mode elicitation), a one-time link to the takeover's live view, and returns
// what ends it once the takeover is over: the link revoked, then the
// client told the elicitation is complete. A user who declines to open it
// while no console is connected cancels the takeover: nobody else would.
// nil when no link went out.
func (d *Desk) offerLink(ctx context.Context, t *Takeover) (end func()) {
	c := ClientOf(ctx)
	d.mu.Lock()
	l := d.linker
	d.mu.Unlock()
	if c == nil || l == nil || !c.CanOpenURL() || !linkAllowed(ctx) {
		return nil
	}
	url, revoke, err := l.TakeoverLink(*t, t.Deadline)
	if err != nil {
		d.log.Warn("takeover: no link for the agent's client", "personality", t.Personality, "err", err)
		return nil
	}
	octx, stop := context.WithCancel(ctx)
	msg := fmt.Sprintf("The agent asks you to take over its browser, in its own words: %s. Open the link to see and drive the page, then press Hand back (it works once, until %s).", Quoted(t.Reason, 300), t.Deadline.UTC().Format(time.TimeOnly+" UTC"))
	go func() {
		accepted, err := c.OpenURL(octx, t.ID, msg, url)
		if octx.Err() != nil || accepted {
			return
		}
		if err != nil {
			d.log.Warn("takeover: the agent's client could not open the link", "personality", t.Personality, "err", err)
		}
		if !d.Attended(t.Personality) {
			d.EndTakeover(t.ID, false, Actor{Kind: ActorHost})
		}
	}()
	return func() {
		stop()
		revoke()
		c.Complete(t.ID)
	}
}

// Held returns the pending takeover of a session.
func (d *Desk) Held(personality, session string) (Takeover, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.takeovers[sessKey{personality, session}]
	if !ok {
		return Takeover{}, false
	}
	return *t, true
}

// Takeovers lists the pending takeovers, oldest first.
func (d *Desk) Takeovers() []Takeover {
	d.mu.Lock()
	out := make([]Takeover, 0, len(d.takeovers))
	for _, t := range d.takeovers {
		out = append(out, *t)
	}
	d.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// EndTakeover settles the pending takeover id: handBack true hands the
// browser back to the agent (outcome user), false cancels it. by is who
// ends it: only a logged-in operator's hand-back releases a withheld page
// (Browser.HandedBack); a link holder's gives the session back as it is.
func (d *Desk) EndTakeover(id string, handBack bool, by Actor) error {
	outcome := abi.TakeoverCancel
	if handBack {
		outcome = abi.TakeoverUser
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.takeovers {
		if t.ID == id {
			select {
			case t.done <- takeoverEnd{outcome, by}:
			default: // already settled
			}
			return nil
		}
	}
	return abi.Errorf(abi.CodeNotFound, "no pending takeover %q: it was handed back, cancelled or timed out already", id)
}

// SessionClosed ends a pending takeover or approval of a session that is
// gone, and forgets operator control of it.
func (d *Desk) SessionClosed(personality, session string) {
	k := sessKey{personality, session}
	d.mu.Lock()
	if t := d.takeovers[k]; t != nil {
		select {
		case t.done <- takeoverEnd{outcome: "closed"}:
		default:
		}
	}
	for _, a := range d.approvals {
		if a.Personality == personality && a.Session == session {
			a.settle(Decision{Verdict: verdictClosed})
		}
	}
	delete(d.control, k)
	delete(d.clients, k)
	delete(d.sessionGrants, k)
	d.mu.Unlock()
	d.changed()
}

// NameSession records the name of the MCP client a session serves (its
// clientInfo), which the console shows; forgotten when the session closes.
func (d *Desk) NameSession(personality, session, client string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || client == "" {
		return
	}
	d.clients[sessKey{personality, session}] = client
}

// ClientName is the MCP client's name of a session, "" when unknown.
func (d *Desk) ClientName(personality, session string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clients[sessKey{personality, session}]
}

// Attach records a console connected for personality ("*": every
// personality) and returns its detach. While one is attached, the
// personality's calls are attended.
func (d *Desk) Attach(personality string) (detach func()) {
	return hold(d, d.presence, personality)
}

// hold counts one holder of k in m and returns its release, which counts
// it out once (a key whose count drops to zero is forgotten). Both notify
// the desk's subscribers.
func hold[K comparable](d *Desk, m map[K]int, k K) func() {
	d.mu.Lock()
	m[k]++
	d.mu.Unlock()
	d.changed()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			if m[k] > 0 {
				if m[k]--; m[k] == 0 {
					delete(m, k)
				}
			}
			d.mu.Unlock()
			d.changed()
		})
	}
}

// Attended reports whether an operator's console is connected for the
// personality.
func (d *Desk) Attended(personality string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.presence[personality] > 0 || d.presence["*"] > 0
}

// Control records an operator driving a session's page (input from the
// live view) and returns its release. While held, agent tools that change
// the page are refused.
func (d *Desk) Control(personality, session string) (release func()) {
	return hold(d, d.control, sessKey{personality, session})
}

// Controlled reports whether an operator drives the session's page, by a
// takeover or from the live view.
func (d *Desk) Controlled(personality, session string) bool {
	k := sessKey{personality, session}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, held := d.takeovers[k]
	return held || d.control[k] > 0
}

// Driven reports whether an operator's input holds the session's page
// (the live view's control), apart from a pending takeover.
func (d *Desk) Driven(personality, session string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.control[sessKey{personality, session}] > 0
}

// Subscribe returns a channel that receives (coalesced) whenever the
// desk's state changes, and its cancel.
func (d *Desk) Subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	d.mu.Lock()
	d.subs[ch] = true
	d.mu.Unlock()
	return ch, func() {
		d.mu.Lock()
		delete(d.subs, ch)
		d.mu.Unlock()
	}
}

func (d *Desk) changed() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for ch := range d.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (d *Desk) event(kind, personality, session string, data map[string]any) {
	if d.opts.Emit == nil {
		return
	}
	b, _ := json.Marshal(data)
	d.opts.Emit(hostfuncs.Event{Time: d.opts.Now().UTC(), Kind: kind, Personality: personality, Session: session, Data: b})
}

// Close ends every pending takeover and approval (as closed) and refuses
// new ones.
func (d *Desk) Close(context.Context) error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.mu.Lock()
	var keys []sessKey
	for k := range d.takeovers {
		keys = append(keys, k)
	}
	for _, a := range d.approvals {
		keys = append(keys, sessKey{a.Personality, a.Session})
	}
	d.mu.Unlock()
	for _, k := range keys {
		d.SessionClosed(k.personality, k.session)
	}
	return nil
}

// CloseSession is SessionClosed (host.Service).
func (d *Desk) CloseSession(personality, session string) error {
	d.SessionClosed(personality, session)
	return nil
}

// HostFuncs returns ww_takeover_request, guarded by the takeover grant.
func (d *Desk) HostFuncs() []sandbox.HostFunc {
	return []sandbox.HostFunc{
		hostfuncs.JSON(abi.HostTakeoverRequest, func(ctx context.Context, c *hostfuncs.Caller, req abi.TakeoverRequest) (*abi.TakeoverResponse, error) {
			return d.RequestTakeover(ctx, c.Personality(), c.Session(), req)
		}),
	}
}

func capRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Unavailable is ww_takeover_request on a host with no operator surface:
// it refuses, naming the fix.
func Unavailable() sandbox.HostFunc {
	return hostfuncs.JSON(abi.HostTakeoverRequest, func(context.Context, *hostfuncs.Caller, abi.TakeoverRequest) (*abi.TakeoverResponse, error) {
		return nil, abi.Errorf(abi.CodeNotAvailable, "no human can take over: this host runs no operator console (serve with [console] enabled)")
	})
}

// await waits for what a person sends on done: unanswered is "" when it
// came, else "timeout" (none within timeout) or "cancelled" (ctx ended
// first), with v the zero value.
func await[T any](ctx context.Context, done <-chan T, timeout time.Duration) (v T, unanswered string) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case v = <-done:
		return v, ""
	case <-timer.C:
		return v, "timeout"
	case <-ctx.Done():
		return v, "cancelled"
	}
}
