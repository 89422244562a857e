package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/host"
)

func init() {
	extraCommands = append(extraCommands, serveCmd, tokenCmd, consoleCmd)
}

// shutdownBudget bounds serve's exit after SIGINT/SIGTERM: calls in flight
// are cancelled, sessions and the host get what is left of it, and when it
// runs out the process exits anyway. A second signal exits at once.
var shutdownBudget = 8 * time.Second

// sessionGrace is the part of it calls get to stop and sessions to close;
// the host's close (browsers, plugins) gets the rest.
const sessionGrace = 3 * time.Second

func serveCmd(g *globals) *cobra.Command {
	var fl serveFlags
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the personality's tools to agents over MCP: stdio, or streamable HTTP with --http",
		Long:  serveLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := fl.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			stderr := cmd.ErrOrStderr()
			if fl.pprofAddr != "" {
				if err := startPprof(fl.pprofAddr, stderr); err != nil {
					return err
				}
			}
			fleet := newFleet(stderr)
			ctx, stopped := stopOnSignal(ctx, stderr, fleet.drain)
			defer stopped()
			h, err := g.openWith(ctx, stderr, true, fleet.metrics.Observe)
			if err != nil {
				return err
			}
			defer closeHost(ctx, h, stderr)
			personality := g.personality
			if personality == "" {
				personality = h.DefaultPersonality()
			}
			tools, err := startPersonality(h, personality, stderr)
			if err != nil {
				return err
			}
			cfg := h.Config()
			served := servedPersonalities(h, personality, fl.transport == "http")
			prewarm(h, served, fl.transport == "stdio")
			stopMetrics, err := fleet.start(h, fl.metricsAddr, fl.allowRemote)
			if err != nil {
				return err
			}
			defer stopMetrics()
			opts := mcp.Options{Version: version(), Logger: h.Logger(), SessionIdle: fl.idle, ShutdownGrace: sessionGrace, MaxSessionsPerToken: cfg.Serve.MaxSessionsPerToken, HTTP: mcp.HTTPOptions{
				AllowedOrigins: cfg.Serve.AllowedOrigins, MaxConns: cfg.Serve.MaxConns, MaxConnsPerIP: cfg.Serve.MaxConnsPerIP,
			}}
			con, err := startConsole(ctx, h, fl.transport, fl.allowRemote || cfg.Serve.AllowRemote, stderr)
			if err != nil {
				return err
			}
			defer con.wait()
			if fl.transport == "stdio" {
				srv := mcp.New(h, opts)
				fleet.serving(h, srv, served)
				fmt.Fprintf(stderr, "wasmwright: serving %d tools of personality %s over stdio\n", len(tools), personality)
				return serveStdio(ctx, srv, cmd.InOrStdin(), cmd.OutOrStdout(), personality)
			}
			if fl.addr == "" {
				fl.addr = cfg.Serve.HTTP
			}
			if fl.addr == "" {
				return fmt.Errorf("no address: pass --http 127.0.0.1:8931 or set serve.http in the config")
			}
			if opts.HTTP.TLS, err = serveTLS(cfg, fl.tlsCert, fl.tlsKey); err != nil {
				return err
			}
			if con.mount != nil {
				opts.HTTP.Mount, opts.HTTP.MountPath = con.mount.Handler(), con.mount.Path()
			}
			srv := mcp.New(h, opts)
			fleet.serving(h, srv, served)
			return serveHTTP(ctx, srv, h, fl.addr, personality, len(tools), fl.allowRemote || cfg.Serve.AllowRemote, opts.HTTP.TLS != nil, con.mount, stderr)
		},
	}
	fl.bind(c.Flags())
	return c
}

// serveFlags are serve's flags.
type serveFlags struct {
	addr        string
	transport   string
	idle        time.Duration
	allowRemote bool
	tlsCert     string
	tlsKey      string
	pprofAddr   string
	metricsAddr string
}

// check settles the transport: --http implies http.
func (fl *serveFlags) check() error {
	if fl.addr != "" {
		fl.transport = "http"
	}
	if fl.transport != "stdio" && fl.transport != "http" {
		return fmt.Errorf("--transport %q: use stdio or http", fl.transport)
	}
	return nil
}

func (fl *serveFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&fl.addr, "http", "", "serve streamable HTTP on this address (host:port; port 0 picks a free one) instead of stdio")
	f.StringVar(&fl.transport, "transport", "stdio", "stdio or http (http listens on --http, else the config's serve.http)")
	f.DurationVar(&fl.idle, "session-idle", 30*time.Minute, "HTTP: close a session (and its browser) after this long without a request; 0 keeps it until the client ends it")
	f.BoolVar(&fl.allowRemote, "allow-remote", false, "HTTP: allow listening on an address that is not loopback (use with --tls-cert/--tls-key)")
	f.StringVar(&fl.tlsCert, "tls-cert", "", "HTTP: serve HTTPS with this PEM certificate (chain)")
	f.StringVar(&fl.tlsKey, "tls-key", "", "HTTP: the PEM private key of --tls-cert")
	f.StringVar(&fl.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics, liveness at /healthz and readiness at /readyz (loopback unless --allow-remote; default: the config's serve.metrics_addr, else off)")
	f.StringVar(&fl.pprofAddr, "pprof", "", "serve Go's profiling endpoints (CPU, heap, mutex, block) at http://ADDR/debug/pprof/ (loopback only; off by default)")
}

// serveLong is serve's help.
const serveLong = `serve speaks the Model Context Protocol.

With no transport flag it serves stdin/stdout: the form an agent's MCP config
launches ("command": "wasmwright", "args": ["serve"]), acting as --personality.

With --http ADDR (or --transport http, which listens on the config's
serve.http) it serves streamable HTTP at http://ADDR/mcp. Every request needs
"Authorization: Bearer TOKEN"; a token maps to a personality through the
config's [[serve.tokens]] (see wasmwright token new). When the config has no
tokens, serve makes one at start (or takes WASMWRIGHT_TOKEN), prints it once
on stderr and maps it to --personality. WASMWRIGHT_TOKEN is always accepted.
HTTP listens on loopback only, unless --allow-remote (or serve.allow_remote)
says otherwise; then give it --tls-cert and --tls-key (or serve.tls_cert and
serve.tls_key), else it warns that tokens cross the network in clear.

Each MCP session is one browser session, owned by the token that opened it;
it is closed when the session ends. SIGINT or SIGTERM first drains: /readyz
answers 503, new sessions get 503 with Retry-After, new calls are refused,
and the calls in flight get serve.drain_timeout (30s) to finish. Then serve
cancels what still runs, closes the sessions and the browsers, and exits
within 10 seconds whatever is still running; a second signal exits at once.

With --metrics-addr ADDR (or serve.metrics_addr) it serves Prometheus
metrics at http://ADDR/metrics, liveness at /healthz and readiness at
/readyz (plugins loaded, the browser or the grid reachable).`

// closeHost closes the host when serve ends: within 30 seconds, or by the
// deadline a stopping serve set on ctx.
func closeHost(ctx context.Context, h *host.Host, stderr io.Writer) {
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if d, ok := ctx.Value(shutdownDeadline{}).(*atomicTime); ok {
		if t := d.get(); !t.IsZero() {
			cancel()
			cctx, cancel = context.WithDeadline(context.Background(), t)
		}
	}
	defer cancel()
	if err := h.Close(cctx); err != nil {
		fmt.Fprintln(stderr, "wasmwright: closing the host:", err)
	}
}

// startPersonality returns the tools serve offers the personality and
// notes its problems on stderr.
func startPersonality(h *host.Host, personality string, stderr io.Writer) ([]abi.ToolSpec, error) {
	tools, err := h.Tools(personality)
	if err != nil {
		return nil, err
	}
	problems, _ := h.Problems(personality)
	for _, p := range problems {
		fmt.Fprintln(stderr, "note:", p)
	}
	return tools, nil
}

// prewarm starts, in the background, what the first call of each
// personality serve serves needs (host.Prewarm: the driver and Chromium
// when one of its tools drives the browser, and the plugins that call
// runs), unless browser.prewarm is false: tools/list does not wait for it,
// and a first call waits for it instead of starting it. Over HTTP those
// are the personality the default token acts as and the ones the config's
// tokens map to. Over stdio the first call's browser session is known
// (mcp.StdioSession), so its context and first tab are opened ahead too.
func prewarm(h *host.Host, served []string, stdio bool) {
	if b := h.Browser(); b == nil || !b.Config().PrewarmAtStart() {
		return
	}
	session := ""
	if stdio {
		session = mcp.StdioSession
	}
	for _, pn := range served {
		h.Prewarm(pn, session)
	}
}

// servedPersonalities are the personalities serve serves: the one it acts
// as and, over HTTP, the ones the config's tokens map to.
func servedPersonalities(h *host.Host, personality string, overHTTP bool) []string {
	served := []string{personality}
	if overHTTP {
		for _, t := range h.Config().Serve.Tokens {
			if !slices.Contains(served, t.Personality) {
				served = append(served, t.Personality)
			}
		}
	}
	return served
}

// serveTLS is the HTTPS config of --tls-cert and --tls-key, else of
// serve.tls_cert and serve.tls_key; nil serves plain HTTP.
func serveTLS(cfg *host.Config, tlsCert, tlsKey string) (*tls.Config, error) {
	if tlsCert == "" && tlsKey == "" {
		tlsCert, tlsKey = cfg.TLSFiles()
	}
	if (tlsCert == "") != (tlsKey == "") {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together: give both or neither")
	}
	if tlsCert != "" {
		return loadTLS(tlsCert, tlsKey)
	}
	return nil, nil
}

func serveStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, personality string) error {
	// The command's streams rather than os.Stdin/os.Stdout, so run() can be
	// driven in-process; stdin is closed with the session (that unblocks its
	// reader when a signal ends the session).
	r, ok := in.(io.ReadCloser)
	if !ok {
		r = io.NopCloser(in)
	}
	t := &sdk.IOTransport{Reader: r, Writer: nopWriteCloser{out}}
	err := srv.ServeTransport(ctx, t, personality, mcp.StdioSession)
	sctx, cancel := context.WithTimeout(context.Background(), sessionGrace)
	defer cancel()
	return joinErr(err, srv.Shutdown(sctx))
}

func serveHTTP(ctx context.Context, srv *mcp.Server, h *host.Host, addr, personality string, ntools int, allowRemote, useTLS bool, mounted *console.Console, stderr io.Writer) error {
	cfg := h.Config()
	tokens, err := mcp.NewTokens(cfg.Serve.Tokens)
	if err != nil {
		return err
	}
	var token, origin string
	switch env := os.Getenv("WASMWRIGHT_TOKEN"); {
	case env != "":
		tokens.Add(env, personality)
		token, origin = env, "from WASMWRIGHT_TOKEN"
	case tokens.Len() == 0:
		// Never serve HTTP without a token: make one for this run.
		token, origin = mcp.NewToken(), "made for this run; set WASMWRIGHT_TOKEN to keep one across restarts"
		tokens.Add(token, personality)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if !loopbackListener(ln) {
		if !allowRemote {
			ln.Close()
			return fmt.Errorf("refusing to serve on %s: it is not a loopback address, so anyone on the network could reach the server; "+
				"listen on 127.0.0.1, or pass --allow-remote (serve.allow_remote = true) with --tls-cert and --tls-key", ln.Addr())
		}
		if !useTLS {
			fmt.Fprintf(stderr, "WARNING: serving plain HTTP on %s, which is not loopback: bearer tokens and every page the agent reads cross the network unencrypted. "+
				"Give --tls-cert and --tls-key, or put a TLS proxy in front.\n", ln.Addr())
		}
	}
	scheme := "http://"
	if useTLS {
		scheme = "https://"
	}
	url := scheme + ln.Addr().String() + mcp.Path
	fmt.Fprint(stderr, connectHelp(url, token, origin, personality, ntools, len(cfg.Serve.Tokens)))
	if mounted != nil {
		mounted.Advertise(scheme + ln.Addr().String())
		fmt.Fprintf(stderr, "wasmwright: operator console at %s%s%s/ (log in with an operator token)\n", scheme, ln.Addr(), cfg.Console.ConsolePath())
	}
	return srv.Serve(ctx, ln, tokens)
}

// loadTLS reads a PEM certificate (chain) and key for HTTPS.
func loadTLS(cert, key string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// loopbackListener says whether ln accepts only loopback connections.
func loopbackListener(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// connectHelp tells the operator how to point an agent at the server.
func connectHelp(url, token, origin, personality string, ntools, configTokens int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wasmwright: serving MCP (streamable HTTP) at %s\n", url)
	shown := token
	if token == "" {
		shown = "<your token>"
		fmt.Fprintf(&b, "  auth: bearer tokens from the config's serve.tokens (%d); a token acts as the personality it maps to\n", configTokens)
	} else {
		fmt.Fprintf(&b, "  personality %s (tools: %d); bearer token (%s):\n    %s\n", personality, ntools, origin, token)
		if configTokens > 0 {
			fmt.Fprintf(&b, "  the config's serve.tokens (%d) are accepted too\n", configTokens)
		}
	}
	// Structs keep the keys in the order people write them.
	type httpServer struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	type stdioServer struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	httpCfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"wasmwright": httpServer{
		Type: "http", URL: url, Headers: map[string]string{"Authorization": "Bearer " + shown},
	}}}, "  ", "  ")
	exe, err := os.Executable()
	if err != nil {
		exe = "wasmwright"
	} else if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	stdioCfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"wasmwright": stdioServer{
		Command: exe, Args: []string{"serve", "--personality", personality},
	}}}, "  ", "  ")
	fmt.Fprintf(&b, `
Connect an agent: add this to its MCP config (.mcp.json for Claude Code, .cursor/mcp.json, ...):
  %s

  Claude Code:
    claude mcp add --transport http wasmwright %s --header "Authorization: Bearer %s"
  MCP Inspector:
    npx @modelcontextprotocol/inspector --cli %s --transport http --header "Authorization: Bearer %s" --method tools/list
  Or let the client start wasmwright itself over stdio (no token needed):
  %s

Stop with Ctrl-C (sessions and browsers are closed first).
`, httpCfg, url, shown, url, shown, stdioCfg)
	return b.String()
}

// runningConsole is the operator console of a serve: mounted on the MCP
// HTTP listener (mount), or on its own listener (done closes when it has
// stopped).
type runningConsole struct {
	mount *console.Console
	done  chan struct{}
}

func (c runningConsole) wait() {
	if c.done != nil {
		<-c.done
	}
}

// startConsole starts the operator console when the config enables it: on
// console.addr when set (with either transport), else on the MCP HTTP
// listener under console.path. stdio without console.addr has no listener
// to serve it on.
func startConsole(ctx context.Context, h *host.Host, transport string, allowRemote bool, stderr io.Writer) (runningConsole, error) {
	cfg := h.Config()
	if !cfg.Console.Enabled {
		return runningConsole{}, nil
	}
	c, err := console.New(h, console.Options{Path: cfg.Console.ConsolePath(), Operators: cfg.Console.Operators})
	if err != nil {
		return runningConsole{}, err
	}
	if n := cfg.Console.Notify; n.URL != "" {
		if os.Getenv(n.SecretEnv) == "" {
			return runningConsole{}, fmt.Errorf("console.notify: the environment variable %s (secret_env) is empty: set it to the webhook's signing secret", n.SecretEnv)
		}
		go c.Notify(ctx, n)
	}
	if cfg.Console.Addr == "" {
		if transport != "http" {
			return runningConsole{}, fmt.Errorf("the console needs a listener: set console.addr (serving MCP over stdio), or serve MCP over HTTP (--http) to share its listener")
		}
		return runningConsole{mount: c}, nil
	}
	ln, err := net.Listen("tcp", cfg.Console.Addr)
	if err != nil {
		return runningConsole{}, fmt.Errorf("console.addr %s: %w", cfg.Console.Addr, err)
	}
	if !loopbackListener(ln) && !allowRemote {
		ln.Close()
		return runningConsole{}, fmt.Errorf("refusing to serve the console on %s: it is not a loopback address; listen on 127.0.0.1, or set serve.allow_remote = true (and serve.tls_cert/tls_key)", ln.Addr())
	}
	opts := console.ServeOptions{ShutdownGrace: sessionGrace, MaxConns: cfg.Serve.MaxConns, MaxConnsPerIP: cfg.Serve.MaxConnsPerIP}
	scheme := "http://"
	if cert, key := cfg.TLSFiles(); cert != "" {
		tc, err := loadTLS(cert, key)
		if err != nil {
			ln.Close()
			return runningConsole{}, err
		}
		opts.TLS, scheme = tc, "https://"
	}
	c.Advertise(scheme + ln.Addr().String())
	fmt.Fprintf(stderr, "wasmwright: operator console at %s%s%s/ (log in with an operator token)\n", scheme, ln.Addr(), c.Path())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Serve(ctx, ln, opts)
	}()
	return runningConsole{done: done}, nil
}

func tokenCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "token", Short: "Make and hash bearer tokens for serve --http"}
	c.AddCommand(&cobra.Command{
		Use:   "new",
		Short: "Print a fresh random token and the [[serve.tokens]] TOML that accepts it (the config keeps only its sha256)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := g.personality
			if p == "" {
				p = "default"
				if cfg, err := host.LoadConfig(g.config); err == nil && cfg.Host.DefaultPersonality != "" {
					p = cfg.Host.DefaultPersonality
				}
			}
			if cfg, err := host.LoadConfig(g.config); err == nil {
				if _, ok := cfg.Personalities[p]; !ok {
					return fmt.Errorf("personality %q is not in %s", p, cfg.Source)
				}
			}
			tok := mcp.NewToken()
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n\n# Add to the config; give the token above to the agent (it is not stored anywhere):\n[[serve.tokens]]\nsha256 = %q\npersonality = %q\n", tok, mcp.HashToken(tok), p)
			return nil
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "hash TOKEN|-",
		Short: "Print the sha256 of a token, as serve.tokens stores it (- reads the token from stdin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tok := args[0]
			if tok == "-" {
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				tok = strings.TrimSpace(string(b))
			}
			if tok == "" {
				return fmt.Errorf("empty token")
			}
			fmt.Fprintln(cmd.OutOrStdout(), mcp.HashToken(tok))
			return nil
		},
	})
	return c
}

func consoleCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "console", Short: "The operator console of wasmwright serve ([console] in the config)"}
	tok := &cobra.Command{Use: "token", Short: "Make operator tokens for the console"}
	var name string
	var personalities []string
	n := &cobra.Command{
		Use:   "new",
		Short: "Print a fresh operator token and the [[console.operators]] TOML that accepts it (the config keeps only its sha256)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg, err := host.LoadConfig(g.config); err == nil {
				for _, p := range personalities {
					if _, ok := cfg.Personalities[p]; !ok {
						return fmt.Errorf("personality %q is not in %s", p, cfg.Source)
					}
				}
			}
			t := console.NewToken()
			ps := ""
			if len(personalities) > 0 {
				q, _ := json.Marshal(personalities)
				ps = fmt.Sprintf("personalities = %s\n", q)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n\n# Add to the config; give the token above to the operator (it is not stored anywhere).\n# The console also needs, once: [console] with enabled = true.\n[[console.operators]]\nname = %q\nsha256 = %q\n%s", t, name, console.HashToken(t), ps)
			return nil
		},
	}
	n.Flags().StringVar(&name, "name", "operator", "the operator's name (shown in the console and the event log)")
	n.Flags().StringSliceVar(&personalities, "personalities", nil, "only these personalities (default: all)")
	tok.AddCommand(n)
	c.AddCommand(tok)
	return c
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func joinErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
