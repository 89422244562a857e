package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func goIn(t *testing.T, dir string, wasm bool, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if wasm {
		cmd.Env = append(cmd.Env, "GOOS=wasip1", "GOARCH=wasm")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v in %s: %v\n%s", args, dir, err, out)
	}
}

// `plugin new` scaffolds a module outside the repository that tests,
// builds, loads and answers over MCP; the same module built without
// -buildmode=c-shared is refused with a message naming the flag, and
// `call` reports that reason, not a missing tool.
func TestPluginNewBuildsOutsideTheRepository(t *testing.T) {
	tmp := t.TempDir()
	if strings.HasPrefix(tmp, wasmbuild.Root()) {
		t.Fatalf("temp dir %s is inside the repository", tmp)
	}
	code, out, stderr := cli(t, "plugin", "new", "shouty", "--dir", tmp, "--sdk", wasmbuild.Root())
	if code != 0 {
		t.Fatalf("plugin new: exit %d\n%s\n%s", code, out, stderr)
	}
	mod := filepath.Join(tmp, "shouty")
	goIn(t, mod, false, "test", "./...")
	plugins := filepath.Join(tmp, "plugins")
	os.MkdirAll(plugins, 0o755)
	goIn(t, mod, true, "build", "-buildmode=c-shared", "-o", filepath.Join(plugins, "shouty.wasm"), ".")
	goIn(t, mod, true, "build", "-o", filepath.Join(plugins, "command.wasm"), ".")
	if err := wasmbuild.Pin(plugins); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(tmp, "ww.toml")
	os.WriteFile(cfgFile, []byte(fmt.Sprintf(`[host]
plugins_dir = %q
cache_dir = %q
default_personality = "author"

[plugins.shouty]
[plugins.command]

[personalities.author]
plugins = ["shouty"]
tools = ["*"]

[personalities.careless]
plugins = ["command"]
tools = ["*"]
`, plugins, filepath.Join(os.TempDir(), "ww-cli-test-cache"))), 0o644)

	// Over MCP.
	cfg, err := host.LoadConfig(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), cfg, host.Options{NoBrowser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	go mcp.New(h, mcp.Options{}).ServeTransport(context.Background(), st, "author", "s1")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "shouty", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); res.IsError || !ok || tc.Text != "HELLO" {
		t.Fatalf("shouty over MCP: error=%v %+v", res.IsError, res.Content)
	}

	// Built as a WASI command: the call names the flag.
	code, out, _ = cli(t, "--config", cfgFile, "call", "shouty", `{"text":"x"}`, "--personality", "careless")
	var e struct {
		Error struct {
			Code, Message string
			Details       map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil || code != 1 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !strings.Contains(e.Error.Message, "is a WASI command") || !strings.Contains(e.Error.Message, "-buildmode=c-shared") || e.Error.Details["load_error"] != "input_invalid" {
		t.Fatalf("a plugin built without -buildmode=c-shared: want its load error naming the flag, got %s", out)
	}
}

// The build command `plugin new` gives makes the same bytes in any folder
// (-trimpath): two copies of the scaffold, in two folders, built with it,
// have one sha256, so a pin holds wherever the author builds.
func TestPluginNewBuildIsReproducibleAcrossFolders(t *testing.T) {
	var sums []string
	for _, dir := range []string{t.TempDir(), t.TempDir()} {
		code, out, stderr := cli(t, "plugin", "new", "same", "--dir", dir, "--sdk", wasmbuild.Root())
		var res struct{ Dir, Build string }
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("plugin new: exit %d\n%s\n%s", code, out, stderr)
		}
		args, ok := strings.CutPrefix(res.Build, "GOOS=wasip1 GOARCH=wasm go ")
		if !ok {
			t.Fatalf("build command %q", res.Build)
		}
		goIn(t, res.Dir, true, strings.Fields(args)...)
		b, err := os.ReadFile(filepath.Join(res.Dir, "same.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		sums = append(sums, hex.EncodeToString(s[:]))
	}
	if sums[0] != sums[1] {
		t.Fatalf("the scaffold's build command made different modules in two folders: %s, %s (without -trimpath the folder's path is in the module)", sums[0][:12], sums[1][:12])
	}
}
