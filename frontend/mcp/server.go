// Package mcp serves a host's tools to agents over the Model Context
// Protocol, on the official go-sdk: stdio (the form agent configs launch)
// and streamable HTTP behind bearer tokens.
//
// One MCP session is one browser session, and it belongs to the principal
// (the bearer token) that opened it: its host.Request Session is
// "<principal>/<MCP session id>" (SessionName), so sessions are namespaced
// per client connection and nothing a tool is given as an argument can name
// another client's. A request that presents another principal's session id
// is refused. When the session ends the host frees what it held
// (host.CloseSession). A connection acts as one personality: stdio's is
// chosen at start, HTTP's by the bearer token.
//
// Tools are not copied once: before each tools/list and tools/call the
// server reconciles its tool set with the host's current one, so a plugin
// swapped in while serving shows up (and clients that listen get
// notifications/tools/list_changed).
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/frontend/listen"
	"github.com/wasmwright/wasmwright/host"
)

// Host is what the MCP front-end needs of a host; *host.Host has it.
type Host interface {
	Tools(personality string) ([]abi.ToolSpec, error)
	Call(ctx context.Context, req host.Request) (*abi.Result, error)
	CloseSession(personality, session string) error
	DefaultPersonality() string
}

var _ Host = (*host.Host)(nil)

// sessionNamer is a Host that shows sessions to operators by their MCP
// client's name (*host.Host).
type sessionNamer interface {
	NameSession(personality, session, client string)
}

// StdioSession is the browser session of the one stdio connection.
const StdioSession = "stdio"

// Options configure a Server. The zero value is usable.
type Options struct {
	// Version is reported to clients in serverInfo.
	Version string
	Logger  *slog.Logger
	// ProgressEvery is the interval of the "working" progress notifications
	// sent during a call whose request carries a progressToken. Default 1s.
	ProgressEvery time.Duration
	// SessionIdle closes an HTTP session that has received no request for
	// this long (its browser is freed). Zero: sessions live until the client
	// deletes them or the server stops.
	SessionIdle time.Duration
	// ShutdownGrace bounds how long Serve waits, once its context is done,
	// for calls to stop and sessions and connections to close. Default
	// DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// MaxSessionsPerToken caps the open HTTP sessions (each a browser
	// context) of one bearer token, so one client cannot crowd out the
	// others' browsers. Default 8.
	MaxSessionsPerToken int
	// HTTP bounds what HTTP clients can hold (Handler, Serve).
	HTTP HTTPOptions
	// ToolSync is how often the tool sets are reconciled with the host
	// between requests, so a plugin swapped in reaches listening clients as
	// notifications/tools/list_changed. Default 2s; negative: only on
	// requests.
	ToolSync time.Duration
}

// Server is the MCP front-end of one host. It is safe for concurrent use.
type Server struct {
	h    Host
	opts Options
	log  *slog.Logger

	// stop ends every call in flight; Shutdown cancels it.
	stop   context.Context
	cancel context.CancelFunc

	create   sync.Mutex // serializes making the HTTP servers
	mu       sync.Mutex
	http     map[string]*sdk.Server // personality → the server HTTP sessions of that personality share
	bindings map[*binding]bool      // every live server, to sync tools and close sessions on Shutdown
	syncing  bool
	watched  map[*sdk.ServerSession]chan struct{}
	limiter  *listen.Listener // Serve's, for tests
	// owners binds each HTTP session to the principal that opened it.
	owners map[*sdk.ServerSession]owner
	// watchers counts sessions whose end is awaited; Shutdown waits for
	// their CloseSession calls.
	watchers sync.WaitGroup
	// calls are the tool calls in flight; draining is set by Drain
	// (drain.go).
	calls    flight
	draining atomic.Bool
	// posts are the HTTP POST requests being answered (Drain).
	posts flight
}

// New returns a Server for h.
func New(h Host, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.MaxSessionsPerToken <= 0 {
		opts.MaxSessionsPerToken = 8
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = DefaultShutdownGrace
	}
	if opts.ToolSync == 0 {
		opts.ToolSync = 2 * time.Second
	}
	s := &Server{h: h, opts: opts, log: opts.Logger, http: map[string]*sdk.Server{}, bindings: map[*binding]bool{}, watched: map[*sdk.ServerSession]chan struct{}{}, owners: map[*sdk.ServerSession]owner{}}
	s.stop, s.cancel = context.WithCancel(context.Background())
	return s
}

const instructions = `wasmwright gives you a real browser as tools; each tool runs as a sandboxed plugin.
Results that change the page end with the page snapshot, whose element refs (e5) are what you pass to act on an element.
A failed call returns text starting with "error <code>:" and says what to do next (stale_ref: take a new snapshot; bot_wall: the page is a block page and was not read).`

// binding is one sdk.Server bound to a personality (and, for a transport
// served directly, to a fixed browser session).
type binding struct {
	s           *Server
	srv         *sdk.Server
	personality string
	session     string          // "" = the MCP session id
	stop        context.Context // cancelled when calls must end

	mu    sync.Mutex
	tools map[string]string // registered tool name → its spec as JSON
}

func (s *Server) newServer(personality, session string, stop context.Context) *binding {
	b := &binding{s: s, personality: personality, session: session, stop: stop, tools: map[string]string{}}
	b.srv = sdk.NewServer(&sdk.Implementation{Name: "wasmwright", Title: "wasmwright browser tools", Version: s.opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       s.log.With("personality", personality),
		// Only tools: no logging capability, no prompts or resources.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	b.sync()
	b.srv.AddReceivingMiddleware(b.middleware)
	s.mu.Lock()
	s.bindings[b] = true
	startSync := !s.syncing && s.opts.ToolSync > 0
	s.syncing = s.syncing || startSync
	s.mu.Unlock()
	if startSync {
		go s.syncLoop()
	}
	return b
}

// syncLoop reconciles every live server's tools until Shutdown.
func (s *Server) syncLoop() {
	t := time.NewTicker(s.opts.ToolSync)
	defer t.Stop()
	for {
		select {
		case <-s.stop.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		bs := make([]*binding, 0, len(s.bindings))
		for b := range s.bindings {
			bs = append(bs, b)
		}
		s.mu.Unlock()
		for _, b := range bs {
			b.sync()
		}
	}
}

// forPersonality returns the shared server of a personality's HTTP
// sessions, or nil when the personality does not exist.
func (s *Server) forPersonality(p string) *sdk.Server {
	s.create.Lock()
	defer s.create.Unlock()
	s.mu.Lock()
	srv := s.http[p]
	s.mu.Unlock()
	if srv != nil {
		return srv
	}
	if _, err := s.h.Tools(p); err != nil {
		s.log.Warn("mcp: token maps to a personality the host does not have", "personality", p, "err", err)
		return nil
	}
	srv = s.newServer(p, "", s.stop).srv
	s.mu.Lock()
	s.http[p] = srv
	s.mu.Unlock()
	return srv
}

// ServeTransport serves one MCP connection over t as personality ("" = the
// host's default), with every call in browser session session. It returns
// when the client disconnects or ctx is done, after the session was closed
// in the host.
func (s *Server) ServeTransport(ctx context.Context, t sdk.Transport, personality, session string) error {
	if personality == "" {
		personality = s.h.DefaultPersonality()
	}
	if _, err := s.h.Tools(personality); err != nil {
		return err
	}
	if session == "" {
		session = StdioSession
	}
	connStop, stopConn := context.WithCancel(s.stop)
	defer stopConn()
	b := s.newServer(personality, session, connStop)
	defer func() {
		s.mu.Lock()
		delete(s.bindings, b)
		s.mu.Unlock()
	}()
	ss, err := b.srv.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("mcp: connecting: %w", err)
	}
	done := s.watch(ss, personality, session)
	select {
	case <-done:
	case <-ctx.Done():
		stopConn() // end calls in flight: Close waits for them
		ss.Close()
		<-done
	}
	return nil
}

// ServeStdio serves the process's stdin/stdout as personality.
func (s *Server) ServeStdio(ctx context.Context, personality string) error {
	return s.ServeTransport(ctx, &sdk.StdioTransport{}, personality, StdioSession)
}

// owner is the principal an HTTP session belongs to and its host session.
type owner struct {
	user    string // auth.TokenInfo.UserID: the sha256 of the bearer token
	session string
	counted bool // initialized: it counts against MaxSessionsPerToken
}

// SessionName is the host session of the MCP session id opened by the
// principal user (a token's UserID): a short tag of the principal, then the
// id. Only the front-end forms it; plugins and tool arguments never do.
func SessionName(user, id string) string {
	if len(user) > 16 {
		user = user[:16]
	}
	return "t" + user + "/" + id
}

// errNotYours refuses a request on a session another principal opened.
var errNotYours = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this MCP session belongs to another client: start your own session (initialize without Mcp-Session-Id)"}

// bind returns the host session of ss for the principal of the request
// (extra's token). The first request of a session binds it to its
// principal and starts watching for its end; a request of any other
// principal is refused. An HTTP session counts against its token's
// MaxSessionsPerToken from its initialize on (the go-sdk client's
// server/discover probe opens a session it never uses), and only an
// initialized session may call tools. A transport served directly has a
// fixed session.
func (b *binding) bind(ss *sdk.ServerSession, extra *sdk.RequestExtra, method string) (string, error) {
	if ss == nil {
		return "", errNotYours
	}
	if b.session != "" {
		b.s.watch(ss, b.personality, b.session)
		return b.session, nil
	}
	var user string
	if extra != nil && extra.TokenInfo != nil {
		user = extra.TokenInfo.UserID
	}
	if user == "" || ss.ID() == "" {
		// Fail closed: an HTTP session always has a principal and an id.
		return "", errNotYours
	}
	s := b.s
	s.mu.Lock()
	o, seen := s.owners[ss]
	if !seen {
		o = owner{user: user, session: SessionName(user, ss.ID())}
	}
	if o.user != user {
		s.mu.Unlock()
		s.log.Warn("mcp: request on another principal's session refused", "personality", b.personality, "session", o.session)
		return "", errNotYours
	}
	if method == "initialize" && !o.counted {
		n := 0
		for _, x := range s.owners {
			if x.user == user && x.counted {
				n++
			}
		}
		if n >= s.opts.MaxSessionsPerToken {
			s.mu.Unlock()
			s.log.Warn("mcp: session refused: too many for one token", "personality", b.personality, "max", s.opts.MaxSessionsPerToken)
			// End the refused session once its answer had time to go out
			// (closing at once can cut the answer off).
			time.AfterFunc(time.Second, func() { ss.Close() })
			return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
				"this token already has %d open sessions, the most it may hold: end one (HTTP DELETE with its Mcp-Session-Id) or let idle ones expire, then start again", n)}
		}
		o.counted = true
	}
	s.owners[ss] = o
	s.mu.Unlock()
	if method == "tools/call" && !o.counted {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this session was not initialized: send initialize first"}
	}
	if !seen {
		s.watch(ss, b.personality, o.session)
	}
	return o.session, nil
}

// watch awaits the end of ss, once per session; the returned channel closes
// after the host closed the session.
func (s *Server) watch(ss *sdk.ServerSession, personality, session string) <-chan struct{} {
	s.mu.Lock()
	if done, ok := s.watched[ss]; ok {
		s.mu.Unlock()
		return done
	}
	done := make(chan struct{})
	s.watched[ss] = done
	s.watchers.Add(1)
	s.mu.Unlock()
	s.log.Info("mcp: session started", "personality", personality, "session", session)
	go func() {
		defer s.watchers.Done()
		defer close(done)
		ss.Wait()
		if err := s.h.CloseSession(personality, session); err != nil {
			s.log.Warn("mcp: closing session", "personality", personality, "session", session, "err", err)
		}
		s.mu.Lock()
		delete(s.watched, ss)
		delete(s.owners, ss)
		s.mu.Unlock()
		s.log.Info("mcp: session ended", "personality", personality, "session", session)
	}()
	return done
}

// Shutdown ends every call in flight, closes every MCP session and waits
// (until ctx is done) for the host to have closed their browser sessions.
// The host itself is the caller's to close.
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancel()
	s.mu.Lock()
	var servers []*sdk.Server
	for b := range s.bindings {
		servers = append(servers, b.srv)
	}
	s.mu.Unlock()
	var sessions []*sdk.ServerSession
	for _, srv := range servers {
		for ss := range srv.Sessions() {
			sessions = append(sessions, ss)
		}
	}
	// A session's Close waits for its handlers, and a call that ignores
	// its cancellation keeps one running: wait for them only until ctx.
	var wg sync.WaitGroup
	for _, ss := range sessions {
		wg.Go(func() { ss.Close() })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); s.watchers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mcp: shutdown: sessions still closing: %w", ctx.Err())
	}
}

// middleware keeps the tool set current and lets the host answer calls to
// tools this personality does not have (not_found or refused, with the
// reason), as tool errors the agent can read.
func (b *binding) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ss, _ := req.GetSession().(*sdk.ServerSession)
		if _, err := b.bind(ss, req.GetExtra(), method); err != nil {
			return nil, err
		}
		switch method {
		case "tools/list":
			b.sync()
		case "tools/call":
			b.sync()
			if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil && !b.has(r.Params.Name) {
				return b.call(ctx, r)
			}
		}
		return next(ctx, method, req)
	}
}

func (b *binding) has(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.tools[name]
	return ok
}

// sync reconciles the server's tools with the host's list for the
// personality. Unchanged tools are left alone, so list_changed goes out
// only when something changed.
func (b *binding) sync() {
	specs, err := b.s.h.Tools(b.personality)
	if err != nil {
		b.s.log.Warn("mcp: listing tools", "personality", b.personality, "err", err)
		specs = nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := make(map[string]bool, len(specs))
	for _, spec := range specs {
		key, _ := json.Marshal(spec)
		if b.tools[spec.Name] == string(key) {
			seen[spec.Name] = true
			continue
		}
		t, err := toolOf(spec)
		if err != nil {
			b.s.log.Warn("mcp: tool not offered", "personality", b.personality, "tool", spec.Name, "err", err)
			continue
		}
		seen[spec.Name] = true
		b.srv.AddTool(t, b.call)
		b.tools[spec.Name] = string(key)
	}
	var gone []string
	for name := range b.tools {
		if !seen[name] {
			gone = append(gone, name)
			delete(b.tools, name)
		}
	}
	if len(gone) > 0 {
		b.srv.RemoveTools(gone...)
	}
}

// call runs one tools/call on the host. Failures are tool results with
// IsError, never protocol errors, so the agent reads them.
func (b *binding) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	ss := req.Session
	session, err := b.bind(ss, req.Extra, "tools/call")
	if err != nil {
		return nil, err
	}
	if ti := tokenInfo(req); ti != nil {
		if p, _ := ti.Extra[extraPersonality].(string); p != b.personality {
			return errorResult(abi.Errorf(abi.CodeRefused, "this session belongs to another personality: start a new session with your token")), nil
		}
	}
	// Counted before the drain check: a drain that starts after it waits
	// for this call, one that started before refuses it.
	b.s.calls.begin()
	defer b.s.calls.end()
	if b.s.draining.Load() {
		return errorResult(drainingError()), nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(b.stop, cancel)()

	if tok := req.Params.GetProgressToken(); tok != nil && ss != nil {
		var note *host.Progress
		ctx, note = host.WithProgress(ctx)
		stopProgress := b.s.progress(ctx, ss, tok, req.Params.Name, note)
		defer stopProgress()
	}
	if c := clientOf(ss); c != nil {
		ctx = host.WithApprovalClient(ctx, c)
	}
	if n, ok := b.s.h.(sessionNamer); ok && ss != nil {
		n.NameSession(b.personality, session, ClientName(ss))
	}
	t0 := time.Now()
	res, err := b.s.h.Call(ctx, host.Request{Personality: b.personality, Session: session, Tool: req.Params.Name, Args: req.Params.Arguments})
	log := b.s.log.With("personality", b.personality, "session", session, "tool", req.Params.Name, "ms", time.Since(t0).Milliseconds())
	if err != nil {
		e := abi.AsError(err)
		if b.stop.Err() != nil {
			e = abi.Errorf(abi.CodeNotAvailable, "wasmwright is shutting down; the call was stopped (its action may have partly run)")
		}
		log.Debug("mcp: call failed", "code", e.Code)
		return errorResult(e), nil
	}
	log.Debug("mcp: call")
	return render(res), nil
}

// progress sends "working" notifications every ProgressEvery until the
// returned stop is called; stop returns after the last one was sent, so no
// notification follows the call's result. When the call's host functions
// say what it waits on (note: a browser session waiting in a Selenium
// Grid's queue), the notification says that instead of "working".
func (s *Server) progress(ctx context.Context, ss *sdk.ServerSession, token any, tool string, note *host.Progress) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.opts.ProgressEvery)
		defer t.Stop()
		start := time.Now()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			what := "working"
			if n := note.Note(); n != "" {
				what = n
			}
			msg := fmt.Sprintf("%s: %s (%s)", tool, what, time.Since(start).Round(time.Second))
			if err := ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg}); err != nil && ctx.Err() == nil {
				s.log.Debug("mcp: progress notification", "err", err)
				if errors.Is(err, sdk.ErrConnectionClosed) {
					return
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}
