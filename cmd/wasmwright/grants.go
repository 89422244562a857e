package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
)

func init() {
	extraCommands = append(extraCommands, grantsCmd)
}

// grantsCmd manages the origin-scoped act grants of host.grants_dir: a
// tool (or every tool of a risk) a personality runs without asking, on
// one origin.
func grantsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "grants",
		Short: "List, add and revoke origin-scoped act grants: calls an ask approval mode lets run without asking, on one origin",
		Long: `grants manages the grants of host.grants_dir (default: the user config dir's
wasmwright/grants), a file per personality (mode 0600).

When a personality's [personalities.P.approval] mode for a risk is "ask", a
call of that risk waits for an operator, unless a grant names its tool (or
its risk) and the origin of the page the session is on. An operator's
"approve for this origin" adds one; these commands add, list and revoke them.
A grant names one origin (scheme://host[:port]), never a wildcard.`,
	}
	open := grantsOpener(g)
	c.AddCommand(grantsListCmd(open))
	// add and revoke share the flags (--tool, --risk, --origin).
	var gr host.Grant
	var risk string
	c.AddCommand(grantsChangeCmd(open, &gr, &risk, "add", "Let a tool (or a risk) run without asking on one origin", func(st *host.GrantStore, p string, gr host.Grant) (string, error) {
		gr.By = "cli"
		if err := st.Add(p, gr); err != nil {
			return "", err
		}
		return fmt.Sprintf("granted %s on %s to personality %s", grantWhat(gr), gr.Origin, p), nil
	}))
	c.AddCommand(grantsChangeCmd(open, &gr, &risk, "revoke", "Remove a grant: the tool asks again on that origin", func(st *host.GrantStore, p string, gr host.Grant) (string, error) {
		found, err := st.Revoke(p, gr)
		if err != nil {
			return "", err
		}
		if !found {
			return "", abi.Errorf(abi.CodeNotFound, "personality %s has no grant of %s on %s: see wasmwright grants list", p, grantWhat(gr), gr.Origin)
		}
		return fmt.Sprintf("revoked %s on %s from personality %s", grantWhat(gr), gr.Origin, p), nil
	}))
	return c
}

// grantsOpener opens the grants store and names the personality, when a
// subcommand runs.
func grantsOpener(g *globals) func() (*host.GrantStore, string, error) {
	return func() (*host.GrantStore, string, error) {
		cfg, err := host.LoadConfig(g.config)
		if err != nil {
			return nil, "", err
		}
		p := g.personality
		if p == "" {
			p = cfg.Host.DefaultPersonality
		}
		if _, ok := cfg.Personalities[p]; !ok {
			return nil, "", abi.Errorf(abi.CodeNotFound, "unknown personality %q: pass --personality with one the config defines", p)
		}
		st, err := cfg.OpenGrants()
		return st, p, err
	}
}

// grantsListCmd is `grants list`.
func grantsListCmd(open func() (*host.GrantStore, string, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "list [--personality P]",
		Short: "List a personality's grants",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, p, err := open()
			if err != nil {
				return err
			}
			gs, err := st.List(p)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tRISK\tORIGIN\tCREATED\tBY")
			for _, gr := range gs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", orDash(gr.Tool), orDash(string(gr.Risk)), gr.Origin, gr.Created.Format(time.RFC3339), orDash(gr.By))
			}
			return tw.Flush()
		},
	}
}

// grantsChangeCmd is `grants add` or `grants revoke`: fn changes the store
// with the grant the flags (gr, risk) name.
func grantsChangeCmd(open func() (*host.GrantStore, string, error), gr *host.Grant, risk *string, use, short string, fn func(st *host.GrantStore, p string, gr host.Grant) (string, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use: use + " --tool T | --risk R --origin O [--personality P]", Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, p, err := open()
			if err != nil {
				return err
			}
			gr.Risk = abi.Risk(*risk)
			if gr.Origin, err = host.ParseOrigin(gr.Origin); err != nil {
				return err
			}
			msg, err := fn(st, p, *gr)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
	cmd.Flags().StringVar(&gr.Tool, "tool", "", "the tool the grant lets run (or --risk)")
	cmd.Flags().StringVar(risk, "risk", "", fmt.Sprintf("every tool of this risk, one of %v (or --tool)", abi.Risks()))
	cmd.Flags().StringVar(&gr.Origin, "origin", "", "the page origin, scheme://host[:port] (a Unicode host is stored in punycode)")
	return cmd
}

// grantWhat names what a grant lets run.
func grantWhat(gr host.Grant) string {
	if gr.Tool != "" {
		return gr.Tool
	}
	return "every " + string(gr.Risk) + " tool"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
