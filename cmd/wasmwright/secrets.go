package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wasmwright/wasmwright/host"
)

func init() {
	extraCommands = append(extraCommands, secretsCmd)
}

// secretsCmd manages the credential vault of the config's [vault] table.
// Values are prompted without echo on a terminal, or read from stdin (one
// per line: username, password, totp) for scripts; they are never printed.
func secretsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "secrets",
		Short: "Manage stored logins in the encrypted vault: add, grant, revoke, list, rm",
		Long: `secrets manages the credential vault named by the config's [vault] table
(default: the user config dir's wasmwright/vault.age), encrypted with age to
the key file beside it (created on first use), or to the passphrase in
WASMWRIGHT_VAULT_PASSPHRASE when that is set.

Agents fill a credential by name with browser_fill_credential; they never see
its values. Each credential says where (origins: https, or http on loopback),
by whom (personalities) and whether without a human present (--unattended).
A filled password or TOTP code is masked in every later result; the username
only with --mask-username (by default the agent reads "Welcome back, ada").`,
	}
	store := vaultStore(g)
	cred := &cobra.Command{Use: "credential", Short: "Add stored logins"}
	cred.AddCommand(secretsAddCmd(store))
	c.AddCommand(cred,
		secretsPolicyCmd(store, "grant NAME [--personality P] [--origin O] [--unattended] [--mask-username]", "Allow a credential on more origins or personalities, or unattended; or mask its username", true),
		secretsPolicyCmd(store, "revoke NAME [--personality P] [--origin O] [--unattended] [--mask-username]", "Take back an origin, a personality or unattended use; or stop masking its username", false),
		secretsListCmd(store), secretsRmCmd(store))
	return c
}

// vaultStore opens the vault the config names, when a subcommand runs.
func vaultStore(g *globals) func() (*host.CredentialStore, error) {
	return func() (*host.CredentialStore, error) {
		cfg, err := host.LoadConfig(g.config)
		if err != nil {
			return nil, err
		}
		return cfg.VaultStore()
	}
}

// secretsAddCmd is `secrets credential add`.
func secretsAddCmd(store func() (*host.CredentialStore, error)) *cobra.Command {
	var origins, personalities []string
	var unattended, maskUser bool
	add := &cobra.Command{
		Use:   "add NAME --origin O --personality P [--unattended] [--mask-username]",
		Short: "Add (or replace) a credential; username, password and optional TOTP seed are prompted, or read from stdin one per line",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := host.ValidCredentialName(args[0]); err != nil {
				return err
			}
			st, err := store()
			if err != nil {
				return err
			}
			vals, err := readValues(cmd.InOrStdin(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			c := host.Credential{Name: args[0], Username: host.Secret(vals[0]), Password: host.Secret(vals[1]),
				Policy: host.CredentialPolicy{Origins: slices.Clone(origins), Personalities: slices.Clone(personalities), Unattended: unattended, MaskUsername: maskUser}}
			if vals[2] != "" {
				t, err := host.ParseTOTP(vals[2])
				if err != nil {
					return err
				}
				c.TOTP = t
			}
			if err := st.Put(c); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stored credential %s in %s\n", c.Name, st.File())
			return nil
		},
	}
	add.Flags().StringSliceVar(&origins, "origin", nil, "origin it may be filled on (https://host[:port]; http only on loopback); repeat for more")
	add.Flags().StringSliceVar(&personalities, "personality", nil, "personality that may fill it; repeat for more")
	add.Flags().BoolVar(&unattended, "unattended", false, "allow an agent to fill it with no human present")
	add.Flags().BoolVar(&maskUser, "mask-username", false, "mask the filled username in results too (passwords and codes always are)")
	return add
}

// secretsPolicyCmd is `secrets grant` (grant) or `secrets revoke`.
func secretsPolicyCmd(store func() (*host.CredentialStore, error), use, short string, grant bool) *cobra.Command {
	var o, p []string
	var un, att, mu bool
	pc := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o) == 0 && len(p) == 0 && !un && !att && !mu {
				return errors.New("name what to change: --origin, --personality, --unattended or --mask-username")
			}
			st, err := store()
			if err != nil {
				return err
			}
			err = st.Update(args[0], func(c *host.Credential) error {
				if grant {
					c.Policy.Origins = append(c.Policy.Origins, o...)
					c.Policy.Personalities = append(c.Policy.Personalities, p...)
					c.Policy.Unattended = c.Policy.Unattended || un
					c.Policy.MaskUsername = c.Policy.MaskUsername || mu
					return nil
				}
				for _, x := range o {
					n, err := host.CredentialOrigin(x)
					if err != nil {
						n = x
					}
					c.Policy.Origins = slices.DeleteFunc(c.Policy.Origins, func(v string) bool { return v == n })
				}
				c.Policy.Personalities = slices.DeleteFunc(c.Policy.Personalities, func(v string) bool { return slices.Contains(p, v) })
				c.Policy.Unattended = c.Policy.Unattended && !un
				c.Policy.MaskUsername = c.Policy.MaskUsername && !mu
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "updated credential %s\n", args[0])
			return nil
		},
	}
	pc.Flags().StringSliceVar(&o, "origin", nil, "origin; repeat for more")
	pc.Flags().StringSliceVar(&p, "personality", nil, "personality; repeat for more")
	verb := "allow"
	if !grant {
		verb = "no longer allow"
	}
	pc.Flags().BoolVar(&un, "unattended", false, verb+" filling with no human present")
	muHelp := "mask the filled username in later results"
	if !grant {
		muHelp = "show the filled username again (passwords and codes stay masked)"
	}
	pc.Flags().BoolVar(&mu, "mask-username", false, muHelp)
	return pc
}

// secretsListCmd is `secrets list`.
func secretsListCmd(store func() (*host.CredentialStore, error)) *cobra.Command {
	return &cobra.Command{
		Use: "list", Short: "List credentials: names and policies, never values", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := store()
			if err != nil {
				return err
			}
			infos, err := st.List()
			if err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), infos)
		},
	}
}

// secretsRmCmd is `secrets rm NAME`.
func secretsRmCmd(store func() (*host.CredentialStore, error)) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME", Short: "Remove a credential", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := store()
			if err != nil {
				return err
			}
			if err := st.Remove(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed credential %s\n", args[0])
			return nil
		},
	}
}

// readValues gets username, password and TOTP seed: prompted without echo
// when stdin is a terminal, else one per line from stdin (the TOTP line may
// be missing or empty).
func readValues(in io.Reader, prompt io.Writer) ([3]string, error) {
	var out [3]string
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		for i, label := range []string{"Username: ", "Password: ", "TOTP seed or otpauth:// URI (empty for none): "} {
			fmt.Fprint(prompt, label)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(prompt)
			if err != nil {
				return out, fmt.Errorf("reading from the terminal: %w", err)
			}
			out[i] = string(b)
			if i != 1 { // a password keeps its spaces
				out[i] = strings.TrimSpace(out[i])
			}
		}
		return out, nil
	}
	r := bufio.NewReader(io.LimitReader(in, 64<<10))
	for i := range out {
		line, err := r.ReadString('\n')
		out[i] = strings.TrimRight(line, "\r\n")
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, fmt.Errorf("reading stdin: %w", err)
		}
	}
	if out[0] == "" && out[1] == "" {
		return out, errors.New("no username or password given: type them at the prompts, or pipe them one per line (username, password, optional TOTP seed)")
	}
	return out, nil
}
