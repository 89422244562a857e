package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/host"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// extraPersonality is the TokenInfo.Extra key of the token's personality.
const extraPersonality = "personality"

// NewToken returns a fresh random bearer token (256 bits).
func NewToken() string {
	return "ww_" + rand.Text() + rand.Text()
}

// HashToken is the sha256 hex of a token, as config serve.tokens stores it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Tokens maps bearer tokens, known only by their sha256, to personalities.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	sum         [sha256.Size]byte
	personality string
}

// NewTokens reads the config's serve.tokens.
func NewTokens(cfg []host.TokenConfig) (*Tokens, error) {
	t := &Tokens{}
	for i, c := range cfg {
		b, err := hex.DecodeString(strings.TrimSpace(c.SHA256))
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("serve.tokens[%d].sha256 is not a sha256 hex digest: make one with `wasmwright token new`", i)
		}
		var e tokenEntry
		copy(e.sum[:], b)
		e.personality = c.Personality
		t.entries = append(t.entries, e)
	}
	return t, nil
}

// Add accepts token as personality.
func (t *Tokens) Add(token, personality string) {
	t.entries = append(t.entries, tokenEntry{sum: sha256.Sum256([]byte(token)), personality: personality})
}

// Len is the number of accepted tokens.
func (t *Tokens) Len() int { return len(t.entries) }

// lookup finds the token's entry. Every entry is compared, in constant
// time, whatever matches.
func (t *Tokens) lookup(token string) (tokenEntry, bool) {
	var found tokenEntry
	ok := 0
	if token == "" {
		return found, false
	}
	sum := sha256.Sum256([]byte(token))
	for _, e := range t.entries {
		eq := subtle.ConstantTimeCompare(sum[:], e.sum[:])
		if eq == 1 && ok == 0 {
			found = e
		}
		ok |= eq
	}
	return found, ok == 1
}

func bearer(r *http.Request) string {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
		return ""
	}
	return f[1]
}

func (t *Tokens) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	e, ok := t.lookup(token)
	if !ok {
		return nil, fmt.Errorf("%w: unknown bearer token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{
		// UserID binds an MCP session to the token that opened it: the
		// go-sdk refuses the session's id with any other token.
		UserID: hex.EncodeToString(e.sum[:]),
		Extra:  map[string]any{extraPersonality: e.personality},
	}, nil
}

func tokenInfo(req *sdk.CallToolRequest) *auth.TokenInfo {
	if req.Extra == nil {
		return nil
	}
	return req.Extra.TokenInfo
}

// Handler is the streamable HTTP endpoint at Path. Every request needs a
// bearer token that tokens accept: without one the answer is 401 and
// nothing of the server (not even its tool names) is shown.
func (s *Server) Handler(tokens *Tokens) http.Handler {
	streamable := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		ti := auth.TokenInfoFromContext(r.Context())
		if ti == nil {
			return nil
		}
		p, _ := ti.Extra[extraPersonality].(string)
		return s.forPersonality(p)
	}, &sdk.StreamableHTTPOptions{SessionTimeout: s.opts.SessionIdle, Logger: s.log})
	withToken := auth.RequireBearerToken(tokens.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if _, ok := tokens.lookup(bearer(r)); !ok {
			s.log.Warn("mcp: request without a valid bearer token", "remote", r.RemoteAddr, "method", r.Method)
			w.Header().Set("WWW-Authenticate", `Bearer realm="wasmwright"`)
			http.Error(w, "401 unauthorized: send the header \"Authorization: Bearer <token>\" with a token this server accepts (wasmwright serve prints one at start; `wasmwright token new` makes one for the config)", http.StatusUnauthorized)
			return
		}
		withToken.ServeHTTP(w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: the MCP endpoint is "+Path, http.StatusNotFound)
	})
	return mux
}

// ShutdownGrace bounds how long Serve waits, once ctx is done, for sessions
// and connections to close.
var ShutdownGrace = 10 * time.Second

// Serve serves the streamable HTTP endpoint on ln until ctx is done, then
// shuts down gracefully: it stops accepting, ends the calls in flight,
// closes every session (the host frees their browser sessions) and the
// connections. The host is the caller's to close.
func (s *Server) Serve(ctx context.Context, ln net.Listener, tokens *Tokens) error {
	if tokens == nil || tokens.Len() == 0 {
		return errors.New("mcp: refusing to serve HTTP without a bearer token")
	}
	srv := &http.Server{Handler: s.Handler(tokens), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	grace, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(grace) }() // closes the listener at once
	errs := []error{s.Shutdown(grace)}
	if err := <-shut; err != nil {
		errs = append(errs, err, srv.Close())
	}
	<-errc
	return errors.Join(errs...)
}
