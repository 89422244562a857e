package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/host/signature"
	"github.com/wasmwright/wasmwright/sandbox"
)

func pluginsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "plugins", Short: "List, inspect, verify, swap, sign and distribute plugins"}
	c.AddCommand(distributionCmds(g)...)
	c.AddCommand(pluginsListCmd(g), pluginsPrecompileCmd(), pluginsInspectCmd(g), pluginsVerifyCmd(g), pluginsSwapCmd(g))
	return c
}

// pluginsListCmd is `plugins list`.
func pluginsListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List configured plugins: version, sha256, tools, hooks, state",
		Args:  cobra.NoArgs,
		RunE: g.withHost(func(cmd *cobra.Command, _ []string, h *host.Host) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tABI\tSHA256\tTOOLS\tHOOKS\tSTATE")
			for _, p := range h.Plugins() {
				state := "ok"
				switch {
				case p.Error != nil:
					state = string(p.Error.Code) + ": " + p.Error.Message
				case p.FileError != nil:
					// The sha256 shown is the last good version's, not the
					// file's: say so on the same line.
					state = "last good version serves; " + fileState(p.FileError)
				}
				sha := p.SHA256
				if len(sha) > 12 {
					sha = sha[:12]
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%v\t%s\n", p.Name, p.Version, p.ABI, sha, len(p.Tools), p.Hooks, state)
			}
			return tw.Flush()
		}),
	}
}

// fileState says what happened to a plugin's file when its last good
// version serves: set aside (refused at a drop, or rolled back: the
// message says which), missing, or refused at this start.
func fileState(e *abi.Error) string {
	switch {
	case e.Details["set_aside"] != "":
		return "its file was set aside (" + e.Details["set_aside"] + "): " + e.Message
	case e.Code == abi.CodeNotAvailable:
		return "its file is missing: " + e.Message
	}
	return "its file was refused: " + string(e.Code) + ": " + e.Message
}

// pluginsPrecompileCmd is `plugins precompile DIR`.
func pluginsPrecompileCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "precompile DIR",
		Short: "Compile every plugin in DIR into DIR/.cache, so a first run with an empty cache_dir does not compile (make build runs it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sandbox.Precompile(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "plugins: compiled into %s\n", filepath.Join(args[0], sandbox.ShippedCache))
			return nil
		},
	}
}

// pluginsInspectCmd is `plugins inspect NAME`.
func pluginsInspectCmd(g *globals) *cobra.Command {
	return &cobra.Command{
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
	}
}

// pluginsVerifyCmd is `plugins verify [FILE]`.
func pluginsVerifyCmd(g *globals) *cobra.Command {
	var verifyKeys []string
	verifyAll := g.withHost(func(cmd *cobra.Command, _ []string, h *host.Host) error {
		bad := 0
		for _, p := range h.Plugins() {
			if p.Error != nil {
				bad++
				fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: %s: %s\n", p.Name, p.Error.Code, p.Error.Message)
				continue
			}
			if p.FileError != nil {
				bad++
				fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: its file %s was refused (%s: %s); its last good version %s serves\n", p.Name, p.File, p.FileError.Code, p.FileError.Message, p.SHA256)
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
	// verifyFile checks FILE's conformance, then its signature when it has
	// one or keys are given.
	verifyFile := g.withHost(func(cmd *cobra.Command, args []string, h *host.Host) error {
		ok := printConformance(cmd.OutOrStdout(), args[0], conformance(cmd.Context(), args[0]))
		if _, err := os.Stat(args[0] + signature.Ext); err == nil || len(verifyKeys) > 0 {
			if err := verifyFileSignature(cmd, h.Config(), args[0], verifyKeys); err != nil {
				return err
			}
		}
		if !ok {
			return &exitError{code: 1}
		}
		return nil
	})
	verify := &cobra.Command{
		Use:   "verify [FILE]",
		Short: "Check every configured plugin (present, matching its pin and signature, loadable, linkable), or FILE's conformance and signature; exit 1 on any problem",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return verifyFile(cmd, args)
			}
			return verifyAll(cmd, args)
		},
	}
	verify.Flags().StringSliceVar(&verifyKeys, "key", nil, "also trust this minisign public key (or .pub file) for FILE's signature")
	return verify
}

// pluginsSwapCmd is `plugins swap NAME FILE`.
func pluginsSwapCmd(g *globals) *cobra.Command {
	var (
		pin  string
		wait time.Duration
	)
	swap := &cobra.Command{
		Use:   "swap NAME FILE",
		Short: "Validate a new version of a plugin and drop it into the plugins folder; say whether a running server swapped it in",
		Long: `swap puts FILE in place as the new version of plugin NAME, with a
NAME.wasm.sha256 pin beside it (and FILE.minisig as NAME.wasm.minisig), once
it passes every check: pin, signature when a personality requires one, ABI,
name, self-test on the host's fixtures and the plugin's own cases, the
detector chain it joins, the grants of every personality using it. A
refused file changes nothing: the command says why, with its code, and
exits 1.

When a live server watches the plugins folder (watch_plugins = true; it
holds .watching/NAME.wasm.lock), that server runs the checks: swap checks
the pin and signature, drops the file in and waits up to --wait for the
server's verdict, woken by the folder's file events. Swapped in: it
records the version as its last good one (.last-good/NAME.wasm.sha256),
"live" is true. Refused: it keeps serving its old version and sets the
file aside (.rejected/NAME.wasm.refused.json says why); swap puts the
previous file back and exits 1 with the server's code. No verdict within
--wait: exit 1 (the server still judges the file when it gets to it).

With no live server watching, swap runs the checks itself before it
installs; a running server that does not watch keeps the old version until
it restarts, and swap says so.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, file := args[0], args[1]
			wasm, err := os.ReadFile(file)
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "reading %s: %v", file, err))
			}
			cfg, err := host.LoadConfig(g.config)
			if err != nil {
				return err
			}
			c := swapCandidate{name: name, file: file, wasm: wasm, pin: pin, sig: signature.Read(file)}
			sum := sha256.Sum256(wasm)
			c.sha256 = hex.EncodeToString(sum[:])
			if c.pin == "" {
				c.pin = c.sha256
			}
			if pluginset.Watched(cfg.PluginFile(name)) {
				return swapThroughServer(cmd, cfg, c, wait)
			}
			return swapLocally(cmd, cfg, c, wait)
		},
	}
	swap.Flags().StringVar(&pin, "sha256", "", "expected sha256 of FILE (default: its own hash)")
	swap.Flags().DurationVar(&wait, "wait", time.Minute, "how long to wait for a server watching the folder to judge the file (it compiles and self-tests it)")
	return swap
}

// installAtomically writes the signature sidecar (or removes a stale one
// when sig is nil) and the pin sidecar, then the new file, each renamed
// into place, so a watching host never sees a half-written plugin.
func installAtomically(dst string, wasm []byte, sum string, sig []byte) error {
	if err := writeOrRemove(dst+signature.Ext, sig); err != nil {
		return err
	}
	if err := pluginset.WriteAtomically(dst+".sha256", []byte(sum+"  "+filepath.Base(dst)+"\n")); err != nil {
		return err
	}
	return pluginset.WriteAtomically(dst, wasm)
}

// narrowForSwap leaves in cfg only what validating a new version of
// plugin name needs: the plugin itself and, in each personality that
// lists it among its detectors, the rest of that chain (the swap checks
// the chain with the candidate in its place). Each personality keeps its
// grants, hook roles and signature rule for those plugins, so the
// candidate is admitted exactly as the server admits it; host.New then
// compiles and self-tests no other plugin, which was most of a swap's
// time (20-39 s with the first-party set, the server's own swap 0.5-1.5 s).
func narrowForSwap(cfg *host.Config, name string) {
	keep := map[string]bool{name: true}
	for pn, pc := range cfg.Personalities {
		if !slices.Contains(pc.Plugins, name) {
			pc.Plugins, pc.Hooks = nil, host.HooksConfig{}
			cfg.Personalities[pn] = pc
			continue
		}
		mine := map[string]bool{name: true}
		if slices.Contains(pc.Hooks.Detect, name) {
			for _, d := range pc.Hooks.Detect {
				mine[d], keep[d] = true, true
			}
		} else {
			pc.Hooks.Detect = nil
		}
		if pc.Hooks.Compact != name {
			pc.Hooks.Compact = ""
		}
		if pc.Hooks.Mask != name {
			pc.Hooks.Mask = ""
		}
		pc.Plugins = slices.DeleteFunc(slices.Clone(pc.Plugins), func(p string) bool { return !mine[p] })
		cfg.Personalities[pn] = pc
	}
	for p := range cfg.Plugins {
		if !keep[p] {
			delete(cfg.Plugins, p)
		}
	}
}
