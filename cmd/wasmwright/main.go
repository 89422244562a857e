// Command wasmwright is the one binary: serve agents over MCP, list and call
// tools, and manage plugins.
//
//	wasmwright tools [--personality P]
//	wasmwright call TOOL '{"json":"args"}' [--personality P] [--session S]
//	wasmwright plugins list | inspect NAME | verify | swap NAME FILE
//	wasmwright plugin new NAME [--dir DIR] [--sdk SOURCE]
//	wasmwright serve [--http 127.0.0.1:8931]
//
// With no --config, the embedded default configuration is used.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
)

type globals struct {
	config      string
	personality string
	session     string
	logLevel    string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries an exit code and a JSON error already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{}
	root := &cobra.Command{
		Use:           "wasmwright",
		Short:         "A browser-tool host for AI agents, with tool logic in sandboxed WebAssembly plugins",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", os.Getenv("WASMWRIGHT_CONFIG"), "config file (default: the embedded default config)")
	pf.StringVar(&g.personality, "personality", "", "personality to act as (default: the config's default_personality)")
	pf.StringVar(&g.session, "session", "default", "session id: one browser context per personality and session")
	pf.StringVar(&g.logLevel, "log-level", "warn", "log level: debug, info, warn, error")

	root.AddCommand(toolsCmd(g), callCmd(g), pluginsCmd(g), configCmd(g))
	for _, extra := range extraCommands {
		root.AddCommand(extra(g))
	}
	err := root.Execute()
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintln(stderr, "wasmwright:", err)
		return 2
	}
}

// extraCommands lets other files of this package add commands (serve...).
var extraCommands []func(*globals) *cobra.Command

func (g *globals) logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(g.logLevel)); err != nil {
		lvl = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl}))
}

// withHost adapts a command body that needs a running host: it starts one
// from the config and closes it when the body returns.
func (g *globals) withHost(fn func(cmd *cobra.Command, args []string, h *host.Host) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		h, err := g.open(cmd.Context(), cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer h.Close(context.Background())
		return fn(cmd, args, h)
	}
}

// open loads the config and starts a host.
func (g *globals) open(ctx context.Context, stderr io.Writer) (*host.Host, error) {
	return g.openWith(ctx, stderr, false, nil)
}

// openWith is open; operators starts the host's operator desk (serve with
// the console enabled).
func (g *globals) openWith(ctx context.Context, stderr io.Writer, operators bool, observe func(host.Event)) (*host.Host, error) {
	cfg, err := host.LoadConfig(g.config)
	if err != nil {
		return nil, err
	}
	setLeanDriverEnv() // before the host can start a driver
	return host.New(ctx, cfg, host.Options{Logger: g.logger(stderr), Operators: operators && cfg.Console.Enabled, Observe: observe})
}

func toolsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "List a personality's tools with their input schemas (JSON)",
		Args:  cobra.NoArgs,
		RunE: g.withHost(func(cmd *cobra.Command, _ []string, h *host.Host) error {
			tools, err := h.Tools(g.personality)
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			problems, _ := h.Problems(g.personality)
			for _, p := range problems {
				fmt.Fprintln(cmd.ErrOrStderr(), "note:", p)
			}
			return printJSON(cmd.OutOrStdout(), tools)
		}),
	}
}

func callCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "call TOOL [JSON-ARGS | - | @FILE]",
		Short: "Run one tool and print its JSON result; on failure a JSON error and exit status 1",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			raw := "{}"
			if len(args) == 2 {
				raw = args[1]
			}
			switch {
			case raw == "-":
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				raw = string(b)
			case strings.HasPrefix(raw, "@"):
				b, err := os.ReadFile(raw[1:])
				if err != nil {
					return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "reading arguments: %v", err))
				}
				raw = string(b)
			}
			if !json.Valid([]byte(raw)) {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "arguments are not valid JSON: pass a JSON object such as '{\"url\":\"https://example.org\"}'"))
			}
			h, err := g.open(ctx, cmd.ErrOrStderr())
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "%v", err))
			}
			defer h.Close(context.Background())
			res, err := h.Call(attended(ctx, cmd.InOrStdin()), host.Request{Personality: g.personality, Session: g.session, Tool: args[0], Args: json.RawMessage(raw)})
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			return printJSON(cmd.OutOrStdout(), res)
		},
	}
}

// attended marks ctx as a call a person is present for when stdin is a
// terminal, so the vault may use credentials that require one; piped or
// scripted input is unattended.
func attended(ctx context.Context, stdin io.Reader) context.Context {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return host.WithHumanPresent(ctx)
	}
	return ctx
}

func configCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Show configuration"}
	c.AddCommand(&cobra.Command{
		Use:   "default",
		Short: "Print the embedded default configuration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(cmd.OutOrStdout(), host.DefaultConfigText())
			return err
		},
	})
	return c
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printError prints {"error": {...}} and makes the command exit 1.
func printError(w io.Writer, err error) error {
	printJSON(w, map[string]*abi.Error{"error": abi.AsError(err)})
	return &exitError{code: 1}
}
