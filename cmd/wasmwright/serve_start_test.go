package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/internal/procfs"
)

// serve over stdio lists the browser tools without waiting for the driver
// or the browser: with a driver_dir that does not exist the tools are
// listed, and the first browser call reports the failed start with its
// code (not_available, naming the driver); with browser.prewarm = false
// and the real driver, serve has started no child process by the time it
// lists its tools.
func TestServeListsToolsWithoutDriver(t *testing.T) {
	e, pageURL := browserServeEnv(t)
	var cfgFile string
	for _, kv := range e.env {
		if v, ok := strings.CutPrefix(kv, "WASMWRIGHT_CONFIG="); ok {
			cfgFile = v
		}
	}
	base, _ := os.ReadFile(cfgFile)
	missing := filepath.Join(t.TempDir(), "no-driver-here")
	for _, extra := range []string{"\n[browser]\ndriver_dir = " + strconv.Quote(missing) + "\n", "\n[browser]\nprewarm = false\n"} {
		os.WriteFile(cfgFile, append(base, extra...), 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.Command(e.bin, "serve")
		cmd.Env = e.env
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("serve with %q: %v", extra, err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list with %q: %v", extra, err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if !strings.Contains(strings.Join(names, " "), "browser_navigate") {
			t.Fatalf("tools/list with %q has no browser tools: %v", extra, names)
		}
		if strings.Contains(extra, "prewarm") {
			if kids := children(cmd.Process.Pid); len(kids) > 0 {
				t.Fatalf("serve with browser.prewarm = false started processes %v before any browser call", kids)
			}
		} else {
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": pageURL}})
			if err != nil || !r.IsError || !strings.Contains(textOf(r), "not_available") || !strings.Contains(textOf(r), "Playwright driver") {
				t.Fatalf("the first browser call with no driver must report not_available naming the driver: %v %s", err, textOf(r))
			}
		}
		cs.Close()
		cancel()
	}
}

// textOf is the text a tool result carries ("" for none).
func textOf(r *sdk.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// children lists the processes whose parent is pid, as "pid (name)".
func children(pid int) []string {
	var out []string
	for _, s := range procfs.Children(pid) {
		out = append(out, fmt.Sprintf("%d (%s)", s.PID, s.Comm))
	}
	return out
}

// By default (browser.prewarm unset) serve starts the driver and Chromium
// by itself, before any browser call, and still lists its tools. The
// driver runs with serve's lean allocator settings (childenv.go), save
// the one the operator set.
func TestServePrewarmsTheBrowser(t *testing.T) {
	e, _ := browserServeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(e.bin, "serve")
	cmd.Env = slices.DeleteFunc(slices.Clone(e.env), func(kv string) bool {
		return strings.HasPrefix(kv, "NODE_OPTIONS=") || strings.HasPrefix(kv, "MALLOC_")
	})
	cmd.Env = append(cmd.Env, "MALLOC_ARENA_MAX=4")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) == 0 {
		t.Fatalf("tools/list: %v", err)
	}
	var env []string
	for env == nil {
		if ctx.Err() != nil {
			t.Fatal("serve started no driver within 60 s of its start")
		}
		time.Sleep(20 * time.Millisecond)
		for _, s := range procfs.Children(cmd.Process.Pid) {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.PID)); err == nil && s.Comm == "node" {
				env = strings.Split(string(b), "\x00")
			}
		}
	}
	for _, kv := range []string{"NODE_OPTIONS=--max-semi-space-size=2", "MALLOC_TRIM_THRESHOLD_=131072", "MALLOC_ARENA_MAX=4"} {
		if !slices.Contains(env, kv) {
			t.Errorf("the driver runs without %s", kv)
		}
	}
}
