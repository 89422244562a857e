// Package registrytest runs the plugin signing workflow against a real OCI
// registry (CNCF distribution, in this process). It is a module of its own
// so that the registry server and its dependencies (logrus, OpenTelemetry,
// gRPC, Redis clients...) stay out of the product's go.mod; it drives the
// wasmwright command as an operator would, as a built binary.
package registrytest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	"github.com/sirupsen/logrus"

	"github.com/wasmwright/wasmwright/distribute"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// passwordEnv is the variable the command reads a key's password from
// (cmd/wasmwright/distribute.go).
const passwordEnv = "WASMWRIGHT_KEY_PASSWORD"

// binary builds cmd/wasmwright from the repository (its own module and
// go.sum) once per test binary.
func binary(t *testing.T) string {
	t.Helper()
	bin, err := wasmbuild.Command()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	wasmbuild.RemoveCommand()
	os.Exit(code)
}

// cli runs the command with args and this process's environment (which
// the test sets with t.Setenv), and returns its exit code, stdout, stderr.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(binary(t), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Fatalf("running wasmwright %s: %v", strings.Join(args, " "), err)
	}
	return 0, out.String(), errb.String()
}

// pluginsDir is a fresh folder holding extract_links, built from source.
func pluginsDir(t *testing.T) string {
	t.Helper()
	return wasmbuild.Installed(t, map[string]string{"extract_links": "examples/extract_links"})
}

// startRegistry runs the CNCF distribution registry in this process, on
// loopback, storing blobs under a folder the test can reach into.
func startRegistry(t *testing.T) (addr, root string) {
	t.Helper()
	root = t.TempDir()
	cfg := &configuration.Configuration{Storage: configuration.Storage{
		"filesystem":  configuration.Parameters{"rootdirectory": root},
		"maintenance": configuration.Parameters{"uploadpurging": map[any]any{"enabled": false}},
	}}
	cfg.HTTP.Secret = "test"
	logrus.SetLevel(logrus.WarnLevel) // the registry logs each request at info
	app := handlers.NewApp(context.Background(), cfg)
	srv := httptest.NewServer(app)
	t.Cleanup(func() { srv.Close(); app.Shutdown() })
	return strings.TrimPrefix(srv.URL, "http://"), root
}

// pullHost is a host that pulls into an empty plugins folder and loads
// extract_links only when signed by a key it trusts.
type pullHost struct{ dir, plugins, config string }

func newOperator(t *testing.T, trusted string) pullHost {
	t.Helper()
	o := pullHost{dir: t.TempDir()}
	o.plugins, o.config = filepath.Join(o.dir, "plugins"), filepath.Join(o.dir, "ww.toml")
	os.WriteFile(o.config, []byte(fmt.Sprintf(`
[host]
plugins_dir = "plugins"
default_personality = "locked"
trusted_keys = [%q]
[plugins.extract_links]
[personalities.locked]
plugins = ["extract_links"]
tools = ["extract_links"]
grants = ["events"]
require_signatures = true
`, trusted)), 0o644)
	return o
}

func (o pullHost) pull(t *testing.T, ref string) (int, string) {
	t.Helper()
	code, out, stderr := cli(t, "--config", o.config, "plugins", "pull", ref, "--plain-http")
	return code, out + stderr
}

// nothingInstalled fails unless the plugins folder holds no file at all
// (missing counts as empty).
func (o pullHost) nothingInstalled(t *testing.T) {
	t.Helper()
	if ents, _ := os.ReadDir(o.plugins); len(ents) > 0 {
		t.Fatalf("a refused pull left %d files in plugins_dir (%s...)", len(ents), ents[0].Name())
	}
}

// The signing workflow of README.md, end to end through the CLI and a real
// OCI registry: an author makes a key, signs and pushes; an operator whose
// personality requires signatures pulls, and the plugin loads and answers.
// Tampered (re-pushed or altered in the registry's storage), unsigned and
// stranger-signed artifacts are refused and install nothing.
func TestSignPushPullVerify(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ww-cli-test-cache"))
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials of this machine
	t.Setenv(passwordEnv, "")
	reg, root := startRegistry(t)
	author := t.TempDir()
	build := pluginsDir(t)
	file := filepath.Join(build, "extract_links.wasm")
	wasm, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(author, "author")
	if code, out, _ := cli(t, "plugins", "keygen", key); code != 0 || !strings.Contains(out, `"public_key": "RW`) {
		t.Fatalf("keygen: %d %s", code, out)
	}
	if code, out, _ := cli(t, "plugins", "keygen", key); code != 1 || !strings.Contains(out, "never overwrites") {
		t.Fatalf("keygen over a key: %d %s", code, out)
	}
	// A password-protected key (scrypt: costly, so only this one).
	t.Setenv(passwordEnv, "correct horse")
	locked := filepath.Join(author, "locked")
	cli(t, "plugins", "keygen", locked)
	t.Setenv(passwordEnv, "wrong")
	if code, out, _ := cli(t, "plugins", "sign", file, "--key", locked+".key"); code != 1 || !strings.Contains(out, passwordEnv) {
		t.Fatalf("sign with the wrong password: %d %s", code, out)
	}
	t.Setenv(passwordEnv, "")
	if code, out, _ := cli(t, "plugins", "sign", file, "--key", key+".key"); code != 0 || !strings.Contains(out, ".minisig") {
		t.Fatalf("sign: %d %s", code, out)
	}
	pubText, _ := os.ReadFile(key + ".pub")
	pub := strings.TrimSpace(strings.SplitN(string(pubText), "\n", 2)[1])
	if code, out, _ := cli(t, "plugins", "verify", file, "--key", key+".pub"); code != 0 || !strings.Contains(out, "ok   signature") {
		t.Fatalf("verify FILE: %d %s", code, out)
	}

	ref := reg + "/plugins/extract_links:1.0.0"
	code, out, stderr := cli(t, "plugins", "push", file, ref, "--plain-http")
	if code != 0 || !strings.Contains(out, `"signed": true`) {
		t.Fatalf("push: %d %s %s", code, out, stderr)
	}
	op := newOperator(t, pub)
	if code, out := op.pull(t, ref); code != 0 || !strings.Contains(out, `"plugin": "extract_links"`) {
		t.Fatalf("pull: %d %s", code, out)
	}
	if code, out, stderr := cli(t, "--config", op.config, "call", "extract_links", `{"html":"<a href=/q>Q</a>"}`); code != 0 || !strings.Contains(out, `"href": "/q"`) {
		t.Fatalf("the pulled plugin must load and answer: %d %s %s", code, out, stderr)
	}
	if code, out, _ := cli(t, "--config", op.config, "plugins", "verify", filepath.Join(op.plugins, "extract_links.wasm")); code != 0 || !strings.Contains(out, "ok   signature") {
		t.Fatalf("verify the pulled file: %d %s", code, out)
	}

	// Refused pulls, each into an empty folder that must stay empty.
	stranger := filepath.Join(author, "stranger")
	cli(t, "plugins", "keygen", stranger)
	dir := t.TempDir()
	tampered := filepath.Join(dir, "tampered.wasm")
	os.WriteFile(tampered, append(append(append([]byte(nil), wasm...), 0, 9, 4), "evilbad!"...), 0o644) // a custom section: it still loads
	sig, _ := os.ReadFile(file + ".minisig")
	os.WriteFile(tampered+".minisig", sig, 0o644) // the original's signature
	unsigned := filepath.Join(dir, "unsigned.wasm")
	os.WriteFile(unsigned, wasm, 0o644)
	strangers := filepath.Join(dir, "strangers.wasm")
	os.WriteFile(strangers, wasm, 0o644)
	cli(t, "plugins", "sign", strangers, "--key", stranger+".key")
	for _, f := range []string{tampered, strangers} {
		if code, out, _ := cli(t, "plugins", "verify", f, "--key", key+".pub"); code != 1 || !strings.Contains(out, "FAIL signature") {
			t.Errorf("verify %s: %d %s", f, code, out)
		}
	}
	for _, c := range []struct{ file, tag, want string }{
		{tampered, "tampered", "does not match the file: it was changed after signing"},
		{unsigned, "unsigned", "plugin extract_links is not signed"},
		{strangers, "stranger", ", which this host does not trust: if you trust its author, add their public key to plugins.extract_links.trusted_keys"},
	} {
		ref := reg + "/plugins/extract_links:" + c.tag
		if code, out, stderr := cli(t, "plugins", "push", c.file, ref, "--plain-http", "--name", "extract_links"); code != 0 {
			t.Fatalf("push %s: %d %s %s", c.tag, code, out, stderr)
		}
		op := newOperator(t, pub)
		code, out := op.pull(t, ref)
		if code != 1 || !strings.Contains(out, `"code": "refused"`) || !strings.Contains(out, c.want) {
			t.Errorf("pull %s: want refused %q, got %d %s", c.tag, c.want, code, out)
		}
		op.nothingInstalled(t)
	}

	// Bytes changed in the registry's own storage: the blob no longer
	// matches the digest the manifest names.
	s := sha256.Sum256(wasm)
	sum := hex.EncodeToString(s[:])
	blob := filepath.Join(root, "docker/registry/v2/blobs/sha256", sum[:2], sum, "data")
	stored, err := os.ReadFile(blob)
	if err != nil {
		t.Fatalf("the registry stores the wasm blob at %s: %v", blob, err)
	}
	stored[len(stored)/2] ^= 0xff
	os.WriteFile(blob, stored, 0o644)
	op = newOperator(t, pub)
	if code, out := op.pull(t, ref); code != 1 || !strings.Contains(out, `"code": "refused"`) || !strings.Contains(out, "does not match its digest") {
		t.Errorf("pull of a blob altered in storage: %d %s", code, out)
	}
	op.nothingInstalled(t)
	// The registry keeps the damaged blob under its digest: pushing the
	// same file again (here under a new tag) changes nothing, as the
	// refusal says; a new build (new bytes, signed again) pulls.
	again := reg + "/plugins/extract_links:again"
	if code, out, stderr := cli(t, "plugins", "push", file, again, "--plain-http"); code != 0 {
		t.Fatalf("push again: %d %s %s", code, out, stderr)
	}
	op = newOperator(t, pub)
	if code, out := op.pull(t, again); code != 1 || !strings.Contains(out, "Pushing the same file again changes nothing") || !strings.Contains(out, "blob sha256:"+sum) {
		t.Errorf("pull after the same file was pushed again: %d %s", code, out)
	}
	op.nothingInstalled(t)
	rebuilt := filepath.Join(dir, "extract_links.wasm")
	os.WriteFile(rebuilt, append(append(append([]byte(nil), wasm...), 0, 10, 5), "build, v2"...), 0o644)
	cli(t, "plugins", "sign", rebuilt, "--key", key+".key")
	next := reg + "/plugins/extract_links:1.0.1"
	if code, out, stderr := cli(t, "plugins", "push", rebuilt, next, "--plain-http"); code != 0 {
		t.Fatalf("push a new build: %d %s %s", code, out, stderr)
	}
	if code, out := newOperator(t, pub).pull(t, next); code != 0 {
		t.Errorf("pull of a new build: %d %s", code, out)
	}

	// An artifact whose wasm calls itself another plugin than it is
	// published as: push refuses to publish it, and one published by
	// another tool is refused by pull too (a host would refuse it at
	// load), which installs nothing.
	misnamed := reg + "/plugins/page_tools:1"
	if code, out, _ := cli(t, "plugins", "push", rebuilt, misnamed, "--plain-http", "--name", "page_tools"); code != 1 || !strings.Contains(out, "nothing was published") {
		t.Fatalf("push misnamed: %d %s", code, out)
	}
	rebuiltWasm, _ := os.ReadFile(rebuilt)
	rebuiltSig, _ := os.ReadFile(rebuilt + ".minisig")
	if _, err := distribute.PushPlugin(context.Background(), misnamed, "page_tools", rebuiltWasm, rebuiltSig, distribute.RegistryOptions{PlainHTTP: true}); err != nil {
		t.Fatalf("publish misnamed: %v", err)
	}
	op = newOperator(t, pub)
	if code, out := op.pull(t, misnamed); code != 1 || !strings.Contains(out, `its wasm calls itself \"extract_links\"`) {
		t.Errorf("pull of a misnamed plugin: %d %s", code, out)
	}
	op.nothingInstalled(t)

	// A reference that is not there.
	if code, out := op.pull(t, reg+"/plugins/nothing:1"); code != 1 || !strings.Contains(out, `"code": "not_found"`) {
		t.Errorf("pull of a missing tag: %d %s", code, out)
	}
}
