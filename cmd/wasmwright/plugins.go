package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
)

func pluginsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "plugins", Short: "List, inspect, verify and swap plugins"}
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List configured plugins: version, sha256, tools, hooks, state",
		Args:  cobra.NoArgs,
		RunE: g.withHost(func(cmd *cobra.Command, _ []string, h *host.Host) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tABI\tSHA256\tTOOLS\tHOOKS\tSTATE")
			for _, p := range h.Plugins() {
				state := "ok"
				if p.Error != nil {
					state = string(p.Error.Code) + ": " + p.Error.Message
				}
				sha := p.SHA256
				if len(sha) > 12 {
					sha = sha[:12]
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%v\t%s\n", p.Name, p.Version, p.ABI, sha, len(p.Tools), p.Hooks, state)
			}
			return tw.Flush()
		}),
	})
	c.AddCommand(&cobra.Command{
		Use:   "inspect NAME",
		Short: "Print a plugin's manifest, imports and state as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: g.withHost(func(cmd *cobra.Command, args []string, h *host.Host) error {
			for _, p := range h.Plugins() {
				if p.Name == args[0] {
					return printJSON(cmd.OutOrStdout(), p)
				}
			}
			return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeNotFound, "no plugin %q in the config", args[0]))
		}),
	})
	verifyAll := g.withHost(func(cmd *cobra.Command, _ []string, h *host.Host) error {
		bad := 0
		for _, p := range h.Plugins() {
			if p.Error != nil {
				bad++
				fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: %s: %s\n", p.Name, p.Error.Code, p.Error.Message)
				continue
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok   %s %s sha256 %s\n", p.Name, p.Version, p.SHA256)
		}
		for _, pn := range h.Personalities() {
			probs, _ := h.Problems(pn)
			for _, pr := range probs {
				fmt.Fprintf(cmd.OutOrStdout(), "note personality %s: %s\n", pn, pr)
			}
		}
		if bad > 0 {
			return &exitError{code: 1}
		}
		return nil
	})
	c.AddCommand(&cobra.Command{
		Use:   "verify [FILE]",
		Short: "Check every configured plugin (present, matching its pin, loadable, linkable), or FILE's conformance; exit 1 on any problem",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if !printConformance(cmd.OutOrStdout(), args[0], conformance(cmd.Context(), args[0])) {
					return &exitError{code: 1}
				}
				return nil
			}
			return verifyAll(cmd, args)
		},
	})
	var pin string
	swap := &cobra.Command{
		Use:   "swap NAME FILE",
		Short: "Validate a new version of a plugin and drop it into the plugins folder; a serving host swaps it in",
		Long: `swap validates FILE as the new version of plugin NAME (pin, ABI, self-test,
grants of every personality using it), then installs it atomically into the
plugins folder with a NAME.wasm.sha256 pin beside it. A host serving with
watch_plugins = true swaps it in while calls continue; calls in flight finish
on the old version. A refused file changes nothing.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, file := args[0], args[1]
			wasm, err := os.ReadFile(file)
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "reading %s: %v", file, err))
			}
			sum := sha256.Sum256(wasm)
			got := hex.EncodeToString(sum[:])
			if pin == "" {
				pin = got
			}
			cfg, err := host.LoadConfig(g.config)
			if err != nil {
				return err
			}
			h, err := host.New(cmd.Context(), cfg, host.Options{Logger: g.logger(cmd.ErrOrStderr()), NoBrowser: true})
			if err != nil {
				return err
			}
			m, err := h.Validate(cmd.Context(), name, wasm, pin)
			h.Close(context.Background())
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			dst := cfg.PluginFile(name)
			if err := installAtomically(dst, wasm, got); err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeExecutionFailed, "installing into %s: %v", filepath.Dir(dst), err))
			}
			return printJSON(cmd.OutOrStdout(), map[string]string{"plugin": name, "version": m.Version, "sha256": got, "installed": dst})
		},
	}
	swap.Flags().StringVar(&pin, "sha256", "", "expected sha256 of FILE (default: its own hash)")
	c.AddCommand(swap)
	return c
}

// installAtomically writes the pin sidecar, then renames the new file into
// place, so a watching host never sees a half-written plugin.
func installAtomically(dst string, wasm []byte, sum string) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".swap-*.wasm")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(wasm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(dst+".sha256", []byte(sum+"  "+filepath.Base(dst)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
