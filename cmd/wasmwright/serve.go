package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/mcp"
)

func init() {
	extraCommands = append(extraCommands, serveCmd, tokenCmd)
}

func serveCmd(g *globals) *cobra.Command {
	var (
		addr      string
		transport string
		idle      time.Duration
	)
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the personality's tools to agents over MCP: stdio, or streamable HTTP with --http",
		Long: `serve speaks the Model Context Protocol.

With no transport flag it serves stdin/stdout: the form an agent's MCP config
launches ("command": "wasmwright", "args": ["serve"]), acting as --personality.

With --http ADDR (or --transport http, which listens on the config's
serve.http) it serves streamable HTTP at http://ADDR/mcp. Every request needs
"Authorization: Bearer TOKEN"; a token maps to a personality through the
config's [[serve.tokens]] (see wasmwright token new). When the config has no
tokens, serve makes one at start (or takes WASMWRIGHT_TOKEN), prints it once
on stderr and maps it to --personality. WASMWRIGHT_TOKEN is always accepted.

Each MCP session is one browser session; it is closed when the session ends.
SIGINT or SIGTERM stops accepting, ends calls in flight, closes the sessions
and the browsers, then exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr != "" {
				transport = "http"
			}
			if transport != "stdio" && transport != "http" {
				return fmt.Errorf("--transport %q: use stdio or http", transport)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			stderr := cmd.ErrOrStderr()
			h, err := g.open(ctx, stderr)
			if err != nil {
				return err
			}
			defer func() {
				cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := h.Close(cctx); err != nil {
					fmt.Fprintln(stderr, "wasmwright: closing the host:", err)
				}
			}()
			personality := g.personality
			if personality == "" {
				personality = h.DefaultPersonality()
			}
			tools, err := h.Tools(personality)
			if err != nil {
				return err
			}
			problems, _ := h.Problems(personality)
			for _, p := range problems {
				fmt.Fprintln(stderr, "note:", p)
			}
			srv := mcp.New(h, mcp.Options{Version: version(), Logger: h.Logger(), SessionIdle: idle})
			if transport == "stdio" {
				fmt.Fprintf(stderr, "wasmwright: serving %d tools of personality %s over stdio\n", len(tools), personality)
				return serveStdio(ctx, srv, cmd.InOrStdin(), cmd.OutOrStdout(), personality)
			}
			if addr == "" {
				addr = h.Config().Serve.HTTP
			}
			if addr == "" {
				return fmt.Errorf("no address: pass --http 127.0.0.1:8931 or set serve.http in the config")
			}
			return serveHTTP(ctx, srv, h, addr, personality, len(tools), stderr)
		},
	}
	f := c.Flags()
	f.StringVar(&addr, "http", "", "serve streamable HTTP on this address (host:port; port 0 picks a free one) instead of stdio")
	f.StringVar(&transport, "transport", "stdio", "stdio or http (http listens on --http, else the config's serve.http)")
	f.DurationVar(&idle, "session-idle", 30*time.Minute, "HTTP: close a session (and its browser) after this long without a request; 0 keeps it until the client ends it")
	return c
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
	sctx, cancel := context.WithTimeout(context.Background(), mcp.ShutdownGrace)
	defer cancel()
	return joinErr(err, srv.Shutdown(sctx))
}

func serveHTTP(ctx context.Context, srv *mcp.Server, h *host.Host, addr, personality string, ntools int, stderr io.Writer) error {
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
	url := "http://" + ln.Addr().String() + mcp.Path
	fmt.Fprint(stderr, connectHelp(url, token, origin, personality, ntools, len(cfg.Serve.Tokens)))
	return srv.Serve(ctx, ln, tokens)
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
