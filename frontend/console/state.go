package console

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
)

// Session states the console shows.
const (
	StateIdle     = "idle"
	StateAgent    = "agent call"
	StateTakeover = "taken over"
	StateOperator = "operator control"
	// StateApproval: the agent's call waits for someone to approve it
	// (the call is running, but nothing happens until they answer).
	StateApproval = "waiting for approval"
)

// Session is one browser session as the console lists it.
type Session struct {
	Personality string `json:"personality"`
	Session     string `json:"session"`
	URL         string `json:"url,omitempty"`
	Title       string `json:"title,omitempty"`
	State       string `json:"state"`
	// Created dates the session (the page shows its age).
	Created time.Time `json:"created"`
	// Client is the agent's MCP client name (clientInfo), when known.
	Client string `json:"client,omitempty"`
	// LastTool is the session's latest tool call in the event tail, and
	// LastAt its time.
	LastTool string    `json:"last_tool,omitempty"`
	LastAt   time.Time `json:"last_at,omitzero"`
}

// State is what an operator sees, filtered to their personalities.
type State struct {
	Operator  string          `json:"operator"`
	Sessions  []Session       `json:"sessions"`
	Takeovers []host.Takeover `json:"takeovers"`
	Approvals []host.Approval `json:"approvals"`
	// Events is the host's event tail, newest last; EventsNote says why it
	// is empty when the host keeps none.
	Events     []host.Event       `json:"events"`
	EventsNote string             `json:"events_note,omitempty"`
	Logins     []host.StoredLogin `json:"logins"`
	LoginsNote string             `json:"logins_note,omitempty"`
}

func (c *Console) state(o *operatorEntry) State {
	st := State{Operator: o.name, Sessions: []Session{}, Takeovers: []host.Takeover{}, Approvals: []host.Approval{}, Events: []host.Event{}, Logins: []host.StoredLogin{}}
	c.events(o, &st)
	c.sessions(o, &st)
	for _, t := range c.desk.Takeovers() {
		if o.sees(t.Personality) {
			st.Takeovers = append(st.Takeovers, t)
		}
	}
	for _, a := range c.desk.Approvals() {
		if o.sees(a.Personality) {
			st.Approvals = append(st.Approvals, a)
		}
	}
	logins, note := c.vaultLogins.get(c.h.Config(), c.log)
	st.LoginsNote = note
	for _, l := range logins {
		if len(o.personalities) == 0 || anySeen(o, l.Policy.Personalities) {
			st.Logins = append(st.Logins, l)
		}
	}
	return st
}

// sessions lists the browser sessions the operator sees, named by their
// MCP client, with their latest tool call (from st.Events).
func (c *Console) sessions(o *operatorEntry, st *State) {
	last := map[[2]string]host.Event{}
	for _, e := range st.Events {
		if e.Kind == "tool.call" {
			last[[2]string{e.Personality, e.Session}] = e // oldest first: the latest stays
		}
	}
	if c.br != nil {
		for _, s := range c.br.OperatorSessions() {
			if !o.sees(s.Personality) {
				continue
			}
			x := Session{Personality: s.Personality, Session: s.Session, URL: s.URL, Title: s.Title, Created: s.Created, State: StateIdle,
				Client: c.desk.ClientName(s.Personality, s.Session)}
			if e, ok := last[[2]string{s.Personality, s.Session}]; ok {
				var d struct {
					Tool string `json:"tool"`
				}
				json.Unmarshal(e.Data, &d)
				x.LastTool, x.LastAt = d.Tool, e.Time
			}
			_, held := c.desk.Held(s.Personality, s.Session)
			controlled := c.desk.Driven(s.Personality, s.Session)
			switch {
			case held && !controlled:
				x.State = StateTakeover // waiting for a human to act
			case held || c.desk.Controlled(s.Personality, s.Session):
				x.State = StateOperator
			case c.desk.Awaiting(s.Personality, s.Session):
				x.State = StateApproval
			case s.Busy:
				x.State = StateAgent
			}
			st.Sessions = append(st.Sessions, x)
		}
	}
}

// events is the host's event tail the operator may see, oldest first.
func (c *Console) events(o *operatorEntry, st *State) {
	src, ok := any(c.h).(eventSource)
	if !ok {
		st.EventsNote = "this host keeps no event tail; see the config's events_file"
		return
	}
	for _, e := range src.RecentEvents(eventTail) {
		if e.Personality == "" || o.sees(e.Personality) {
			st.Events = append(st.Events, e)
		}
	}
}

func anySeen(o *operatorEntry, ps []string) bool {
	for _, p := range ps {
		if o.sees(p) {
			return true
		}
	}
	return false
}

// storedLogins are the vault's credentials (names and policies only),
// read at most every 15 seconds: opening the vault is not free.
type storedLogins struct {
	mu      sync.Mutex
	list    []host.StoredLogin
	at      time.Time
	problem string
}

// get lists the credentials of cfg's vault, and what keeps them from
// being listed ("" when nothing).
func (s *storedLogins) get(cfg *host.Config, log *slog.Logger) ([]host.StoredLogin, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.at) < 15*time.Second {
		return s.list, s.problem
	}
	s.at = time.Now()
	s.list, s.problem = nil, ""
	store, err := cfg.VaultStore()
	if err == nil {
		s.list, err = store.List()
	}
	if err != nil {
		s.problem = "the vault cannot be read: check the [vault] configuration"
		log.Warn("console: listing stored logins", "err", err)
	}
	return s.list, s.problem
}

// takeover is POST /api/takeover {id, hand_back}: Hand back (true) or
// Cancel (false).
func (c *Console) takeover(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	var req struct {
		ID       string `json:"id"`
		HandBack bool   `json:"hand_back"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	mine := slices.ContainsFunc(c.desk.Takeovers(), func(t host.Takeover) bool { return t.ID == req.ID && o.sees(t.Personality) })
	settle(w, mine, func() error {
		err := c.desk.EndTakeover(req.ID, req.HandBack, host.Actor{Kind: host.ActorOperator, Name: o.name})
		if err == nil {
			c.log.Info("console: takeover ended", "operator", o.name, "id", req.ID, "hand_back", req.HandBack)
		}
		return err
	}, "no pending takeover %q that you may end: it was handed back, cancelled or timed out already", req.ID)
}

// settle answers a decision on a pending item: not_found unless the
// operator may see it (mine), else what act returns.
func settle(w http.ResponseWriter, mine bool, act func() error, notFound string, id string) {
	if !mine {
		writeError(w, abi.Errorf(abi.CodeNotFound, notFound, id))
		return
	}
	if err := act(); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// approval is POST /api/approval {id, verdict}.
func (c *Console) approval(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	var req struct {
		ID      string `json:"id"`
		Verdict string `json:"verdict"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	mine := slices.ContainsFunc(c.desk.Approvals(), func(a host.Approval) bool { return a.ID == req.ID && o.sees(a.Personality) })
	settle(w, mine, func() error {
		return c.desk.Decide(req.ID, host.Decision{Verdict: req.Verdict, By: o.name})
	}, "no pending approval %q that you may decide: it was decided, timed out or its call ended", req.ID)
}

// closeSession is POST /api/close {personality, session}.
func (c *Console) closeSession(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	var req struct {
		Personality string `json:"personality"`
		Session     string `json:"session"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if !o.sees(req.Personality) {
		writeError(w, abi.Errorf(abi.CodeRefused, "you may not act on personality %q", req.Personality))
		return
	}
	if err := c.h.CloseSession(req.Personality, req.Session); err != nil {
		writeError(w, err)
		return
	}
	c.log.Info("console: session closed by an operator", "operator", o.name, "personality", req.Personality, "session", req.Session)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// approvalPicture is GET /api/approval/{id}/picture: the page of a pending
// approval with its target boxed (PNG), taken now. 404 once it is decided.
func (c *Console) approvalPicture(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	id := r.PathValue("id")
	pending := c.desk.Approvals()
	i := slices.IndexFunc(pending, func(a host.Approval) bool { return a.ID == id && o.sees(a.Personality) })
	if i < 0 || c.br == nil {
		http.Error(w, "no such pending approval", http.StatusNotFound)
		return
	}
	a := pending[i]
	ref := ""
	if a.Target != nil {
		ref = a.Target.Ref
	}
	info := c.br.DescribeTarget(a.Personality, a.Session, ref, true)
	if len(info.PNG) == 0 {
		http.Error(w, "the page gave no picture in time", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	if b := info.Box; b != nil {
		// Where the element is boxed, so the card boxes it again over the
		// live view that takes the picture's place.
		w.Header().Set("X-Target-Box", fmt.Sprintf("%.1f %.1f %.1f %.1f", b.X, b.Y, b.Width, b.Height))
	}
	w.Write(info.PNG)
}
