package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"aead.dev/minisign"
	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/distribute"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/signature"
)

// Signing and distribution: plugins keygen, sign, push and pull, and the
// signature part of `plugins verify FILE` (host/signature, distribute).

// passwordEnv holds the password of an encrypted signing key.
const passwordEnv = "WASMWRIGHT_KEY_PASSWORD"

func distributionCmds(g *globals) []*cobra.Command {
	// push and pull share the registry options (--plain-http).
	var ropts distribute.RegistryOptions
	push, pull := pushCmd(&ropts), pullCmd(g, &ropts)
	for _, c := range []*cobra.Command{push, pull} {
		c.Flags().BoolVar(&ropts.PlainHTTP, "plain-http", false, "speak HTTP, not HTTPS, to the registry (one on loopback)")
	}
	return []*cobra.Command{keygenCmd(), signCmd(), push, pull}
}

// keygenCmd is `plugins keygen PREFIX`.
func keygenCmd() *cobra.Command {
	keygen := &cobra.Command{
		Use:   "keygen PREFIX",
		Short: "Make a minisign signing key: PREFIX.key (secret, mode 0600) and PREFIX.pub (to trust)",
		Long: `keygen writes a minisign key pair. The secret key is encrypted with the
password in $` + passwordEnv + ` when it is set, stored in clear (mode 0600)
otherwise. Keys of the minisign tool work as well (minisign -G).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pub, priv, err := minisign.GenerateKey(rand.Reader)
			if err != nil {
				return err
			}
			var secret []byte
			if pw := os.Getenv(passwordEnv); pw != "" {
				secret, err = minisign.EncryptKey(pw, priv)
			} else {
				secret, err = priv.MarshalText()
			}
			if err != nil {
				return err
			}
			pubText, _ := pub.MarshalText()
			for _, f := range []struct {
				path string
				b    []byte
				mode os.FileMode
			}{{args[0] + ".key", secret, 0o600}, {args[0] + ".pub", append(pubText, '\n'), 0o644}} {
				fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
				if err != nil {
					return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeRefused, "%v: keygen never overwrites a key; pick another PREFIX", err))
				}
				_, err = fh.Write(f.b)
				if cerr := fh.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
			}
			return printJSON(cmd.OutOrStdout(), map[string]string{"key_id": signature.KeyID(pub.ID()), "public_key": pub.String(),
				"secret_key": args[0] + ".key", "trust_with": fmt.Sprintf("trusted_keys = [%q]  # in [host] or [plugins.NAME]", pub.String())})
		},
	}
	return keygen
}

// signCmd is `plugins sign FILE --key KEY`.
func signCmd() *cobra.Command {
	var keyFile string
	sign := &cobra.Command{
		Use:   "sign FILE --key KEY",
		Short: "Sign a plugin .wasm with a minisign secret key, writing FILE.minisig beside it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := os.ReadFile(keyFile)
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "reading the key: %v: give --key PREFIX.key (wasmwright plugins keygen)", err))
			}
			var key minisign.PrivateKey
			if minisign.IsEncrypted(raw) {
				key, err = minisign.DecryptKey(os.Getenv(passwordEnv), raw)
			} else {
				err = key.UnmarshalText(raw)
			}
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "%s: %v: an encrypted key needs its password in $%s", keyFile, err, passwordEnv))
			}
			wasm, err := os.ReadFile(args[0])
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "reading %s: %v", args[0], err))
			}
			if err := os.WriteFile(args[0]+signature.Ext, distribute.Sign(key, wasm, args[0]), 0o644); err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), map[string]string{"file": args[0], "signature": args[0] + signature.Ext, "key_id": signature.KeyID(key.ID()), "sha256": sha256Hex(wasm)})
		},
	}
	sign.Flags().StringVar(&keyFile, "key", "", "the minisign secret key file")
	sign.MarkFlagRequired("key")
	return sign
}

// pushCmd is `plugins push FILE REF`.
func pushCmd(ropts *distribute.RegistryOptions) *cobra.Command {
	var name string
	push := &cobra.Command{
		Use:   "push FILE REF",
		Short: "Publish a plugin and its FILE.minisig to an OCI registry (REF: registry/repository:tag)",
		Long: `push checks FILE as pull will, before publishing anything: it must load
as a plugin, and its manifest's name is the name it is published under
(--name, when given, must be that name). A file without FILE.minisig is
pushed unsigned, with a warning: pull refuses it.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			wasm, err := os.ReadFile(args[0])
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeInputInvalid, "reading %s: %v", args[0], err))
			}
			// What pull checks, checked before anything is published: the
			// wasm loads as a plugin, and it calls itself what it is
			// published as (a host refuses it under another name).
			described, err := describedName(cmd.Context(), wasm, strings.TrimSuffix(filepath.Base(args[0]), ".wasm"))
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeRefused, "%s does not load as a plugin (%s): nothing was published; check it with wasmwright plugins verify %s", args[0], abi.AsError(err).Message, args[0]))
			}
			if name == "" {
				name = described
			} else if name != described {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeRefused, "%s calls itself %q in its manifest, not %q: a host would refuse it under that name; nothing was published (push it with --name %s, or rename the plugin in its manifest and rebuild)", args[0], described, name, described))
			}
			sig := signature.Read(args[0])
			if sig == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s has no %s: pushing it unsigned; pull and hosts that require signatures will refuse it (wasmwright plugins sign)\n", args[0], signature.Ext)
			}
			digest, err := distribute.PushPlugin(cmd.Context(), args[1], name, wasm, sig, *ropts)
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			return printJSON(cmd.OutOrStdout(), map[string]any{"plugin": name, "ref": args[1], "digest": digest, "signed": sig != nil})
		},
	}
	push.Flags().StringVar(&name, "name", "", "the plugin's name, which must be the one its manifest gives (default: that name)")
	return push
}

// pullCmd is `plugins pull REF`.
func pullCmd(g *globals, ropts *distribute.RegistryOptions) *cobra.Command {
	pull := &cobra.Command{
		Use:   "pull REF",
		Short: "Fetch a signed plugin from an OCI registry into plugins_dir, verified before it is installed",
		Long: `pull fetches the plugin at REF, checks every blob against its digest and
its signature against the keys the config trusts for it (host.trusted_keys,
plugins.NAME.trusted_keys), and only then installs NAME.wasm with its
.minisig and .sha256 sidecars into plugins_dir. Anything refused installs
nothing. A host serving with watch_plugins = true swaps it in.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := host.LoadConfig(g.config)
			if err != nil {
				return err
			}
			p, err := distribute.PullPlugin(cmd.Context(), args[0], *ropts)
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			keys, err := cfg.TrustedKeys(p.Name)
			if err != nil {
				return err
			}
			by, err := signature.Verify(p.Name, p.Wasm, p.Sig, keys)
			if err != nil {
				return printError(cmd.OutOrStdout(), err)
			}
			// The annotation is what the registry says; the wasm is what a
			// host will load, and refuses under another name: check it now,
			// before anything is installed.
			described, err := describedName(cmd.Context(), p.Wasm, p.Name)
			if err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeRefused, "%s: its wasm does not load (%v): nothing was installed", args[0], abi.AsError(err).Message))
			}
			if described != p.Name {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeRefused, "%s is published as plugin %q, but its wasm calls itself %q: a host would refuse it under that name; nothing was installed (its publisher pushes it with --name %s)", args[0], p.Name, described, described))
			}
			dst := cfg.PluginFile(p.Name)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			sum := sha256Hex(p.Wasm)
			if err := installAtomically(dst, p.Wasm, sum, p.Sig); err != nil {
				return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeExecutionFailed, "installing into %s: %v", filepath.Dir(dst), err))
			}
			if _, ok := cfg.Plugins[p.Name]; !ok {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: no [plugins.%s] in the config: add it, and the plugin to a personality, to load it\n", p.Name)
			}
			return printJSON(cmd.OutOrStdout(), map[string]string{"plugin": p.Name, "digest": p.Digest, "sha256": sum, "signed_by": by, "installed": dst})
		},
	}
	return pull
}

// verifyFileSignature is the signature part of `plugins verify FILE`: it
// prints one line and exits 1 unless FILE passes. An unsigned file passes
// unless a personality loading it requires signatures; a signature that
// does not verify against the trusted keys (the config's for the plugin
// FILE is, plus extra) never does.
func verifyFileSignature(cmd *cobra.Command, cfg *host.Config, file string, extra []string) error {
	out := cmd.OutOrStdout()
	name := strings.TrimSuffix(filepath.Base(file), ".wasm")
	abs, _ := filepath.Abs(file)
	for n := range cfg.Plugins {
		if cfg.PluginFile(n) == abs {
			name = n
		}
	}
	keys, err := cfg.TrustedKeys(name)
	for _, k := range extra {
		if err != nil {
			break
		}
		var pk minisign.PublicKey
		pk, err = signature.ParseTrustedKey(k, ".")
		keys = append(keys, pk)
	}
	var wasm []byte
	if err == nil {
		wasm, err = os.ReadFile(file)
	}
	if err != nil {
		fmt.Fprintf(out, "FAIL signature %s: %v\n", file, err)
		return &exitError{code: 1}
	}
	sig := signature.Read(file)
	req := cfg.SignatureRequiredBy(name)
	if sig == nil && len(req) == 0 {
		fmt.Fprintf(out, "note signature %s: unsigned (hosts with require_signatures refuse it: wasmwright plugins sign)\n", file)
		return nil
	}
	by, err := signature.Verify(name, wasm, sig, keys)
	if err != nil {
		fmt.Fprintf(out, "FAIL signature %s: %v\n", file, err)
		return &exitError{code: 1}
	}
	fmt.Fprintf(out, "ok   signature %s: signed by trusted key %s\n", file, by)
	return nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeOrRemove writes b to path, or removes path when b is nil.
func writeOrRemove(path string, b []byte) error {
	if b == nil {
		if err := os.Remove(path); !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(path, b, 0o644)
}
