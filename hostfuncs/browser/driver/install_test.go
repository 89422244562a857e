package driver

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// The driver folder made for an npm-installed playwright-core answers
// playwright-go's `cli.js --version` from playwright-core's package.json,
// without loading playwright-core (a node start and a load as long as the
// driver's own), and hands every other command to playwright-core's own
// cli.js with its arguments.
func TestDriverLayoutAnswersTheVersionCheckItself(t *testing.T) {
	testenv.Heavy(t, "node")
	t.Parallel()
	prefix := t.TempDir()
	loaded := filepath.Join(prefix, "loaded")
	core := fakeCore(t, prefix, Version, `require("fs").writeFileSync(`+jsString(loaded)+`, JSON.stringify(process.argv.slice(2)));`)
	layout, run := laidOut(t, prefix, core)
	if out := run("--version"); out != "Version "+Version+"\n" {
		t.Fatalf("--version printed %q", out)
	}
	if _, err := os.Stat(loaded); err == nil {
		t.Fatal("--version loaded playwright-core's cli.js")
	}
	run("run-driver")
	if b, _ := os.ReadFile(loaded); string(b) != `["run-driver"]` {
		t.Fatalf("playwright-core's cli.js saw arguments %s, want [\"run-driver\"]", b)
	}
	// Laying it out again leaves a correct folder as it is.
	if again, err := layoutDriver(prefix, core); err != nil || again != layout {
		t.Fatalf("second layout: %s %v", again, err)
	}
}

// fakeCore installs a stand-in playwright-core of version in prefix's
// node_modules, its cli.js being cliJS; it returns the package's folder.
func fakeCore(t *testing.T, prefix, version, cliJS string) string {
	t.Helper()
	core := filepath.Join(prefix, "node_modules", "playwright-core")
	if err := os.MkdirAll(core, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(core, "package.json"), []byte(`{"name": "playwright-core", "version": "`+version+`"}`), 0o644)
	os.WriteFile(filepath.Join(core, "cli.js"), []byte(cliJS), 0o644)
	return core
}

// laidOut lays the driver folder out for core under prefix, and returns
// it with a runner of the layout's node on its cli.js with args, as
// playwright-go does, that returns what it printed.
func laidOut(t *testing.T, prefix, core string) (layout string, run func(args ...string) string) {
	t.Helper()
	layout, err := layoutDriver(prefix, core)
	if err != nil {
		t.Fatal(err)
	}
	return layout, func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(layout, "node"), append([]string{filepath.Join(layout, "package", "cli.js")}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("node cli.js %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The real driver starts from such a folder, with playwright-go's version
// check answered by it.
func TestDriverStartsFromItsLayout(t *testing.T) {
	testenv.Heavy(t, "the Playwright driver")
	testenv.Driver(t)
	// testenv.Driver set PLAYWRIGHT_CLI_PATH, if it was not: playwright-core's
	// own cli.js (not a layout of ours, whose cli.js is a script we wrote).
	cli, err := filepath.EvalSymlinks(os.Getenv("PLAYWRIGHT_CLI_PATH"))
	if b, _ := os.ReadFile(cli); err != nil || strings.Contains(string(b), "Written by wasmwright") {
		t.Fatalf("PLAYWRIGHT_CLI_PATH=%s is not playwright-core's own cli.js (%v)", os.Getenv("PLAYWRIGHT_CLI_PATH"), err)
	}
	core := filepath.Dir(cli)
	prefix := t.TempDir()
	os.MkdirAll(filepath.Join(prefix, "node_modules"), 0o755)
	if err := os.Symlink(core, filepath.Join(prefix, "node_modules", "playwright-core")); err != nil {
		t.Fatal(err)
	}
	layout, err := layoutDriver(prefix, filepath.Join(prefix, "node_modules", "playwright-core"))
	if err != nil {
		t.Fatal(err)
	}
	// playwright-go reads these and would let them win over the folder.
	t.Setenv("PLAYWRIGHT_CLI_PATH", "")
	os.Unsetenv("PLAYWRIGHT_CLI_PATH")
	p, err := pw.Run(&pw.RunOptions{DriverDirectory: layout, SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		t.Fatalf("the driver did not start from %s: %v", layout, err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
}

// playwright-go's version check starts no node: the layout's node answers
// it (the version checked from package.json when the folder is laid out),
// and hands every other command to the real node, arguments and all.
func TestDriverVersionCheckStartsNoNode(t *testing.T) {
	testenv.Heavy(t, "node")
	real, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir()
	core := fakeCore(t, prefix, Version, `console.log("core " + process.argv.slice(2).join(" "))`)
	// A node whose every start is written down, at a path that needs quoting.
	started := filepath.Join(prefix, "started")
	fake := filepath.Join(prefix, "it's node")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> '"+started+"'\nexec '"+real+"' \"$@\"\n"), 0o755)
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", fake)
	_, run := laidOut(t, prefix, core)
	if out := run("--version"); out != "Version "+Version+"\n" {
		t.Fatalf("--version printed %q", out)
	}
	if b, err := os.ReadFile(started); err == nil {
		t.Fatalf("the version check started node: %s", b)
	}
	if out := run("run-driver", "a b"); out != "core run-driver a b\n" {
		t.Fatalf("run-driver printed %q", out)
	}
	if b, _ := os.ReadFile(started); !strings.Contains(string(b), "run-driver a b") {
		t.Fatalf("run-driver did not start the real node: %q", b)
	}
}

// Another installed playwright-core fails when the folder is laid out, as
// playwright-go's own check would at the driver's start.
func TestDriverLayoutRefusesAnotherVersion(t *testing.T) {
	t.Parallel()
	prefix := t.TempDir()
	fakeCore(t, prefix, "1.63.0", "")
	_, err := Options(prefix, io.Discard)
	if e := abi.AsError(err); e == nil || e.Code != abi.CodeNotAvailable || !strings.Contains(e.Message, "playwright-core 1.63.0 is installed") {
		t.Fatalf("Options on playwright-core 1.63.0: %v", err)
	}
}

// The layout's cli.js keeps V8's compiled code of playwright-core's large
// bundles: the first driver writes it when it stops, the next one starts
// from it (and still works: it answers playwright-go's handshake).
func TestDriverStartsFromItsCompiledCode(t *testing.T) {
	testenv.Heavy(t, "the Playwright driver")
	layout := laidOutDriver(t)
	start := func() string {
		t.Helper()
		var stderr strings.Builder
		p, err := pw.Run(&pw.RunOptions{DriverDirectory: layout, SkipInstallBrowsers: true, Stderr: &stderr})
		if err != nil {
			t.Fatalf("the driver did not start from %s: %v", layout, err)
		}
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		return stderr.String()
	}
	if out := start(); !strings.Contains(out, "coreBundle.js none") || !strings.Contains(out, "utilsBundle.js none") {
		t.Fatalf("first start: %q", out)
	}
	for _, bundle := range []string{"coreBundle.js.", "utilsBundle.js."} {
		m, _ := filepath.Glob(filepath.Join(layout, "v8-cache", bundle+"*"))
		if len(m) != 1 {
			t.Fatalf("v8-cache holds %v for %s", m, bundle)
		}
	}
	if out := start(); !strings.Contains(out, "coreBundle.js loaded") || !strings.Contains(out, "utilsBundle.js loaded") {
		t.Fatalf("second start did not load the compiled code: %q", out)
	}
}

// Compiled code V8 refuses (here: not V8's at all) costs only a compile:
// the module runs as without it, its relative requires and require.resolve
// work, and the file is written again. A small file is not cached, and a
// changed bundle never runs the old one's code.
func TestDriverCodeCacheRefusedIsRecompiled(t *testing.T) {
	testenv.Heavy(t, "node")
	t.Parallel()
	prefix := t.TempDir()
	core := fakeCore(t, prefix, Version, `console.log(require("./lib/big.js")())`)
	os.MkdirAll(filepath.Join(core, "lib"), 0o755)
	// Over the loader's size floor, as playwright-core's bundles are.
	big := func(word string) []byte {
		return []byte("module.exports = () => \"" + word + " \" + require(\"./small.js\") + \" \" + require(\"path\").basename(require.resolve(\"./small.js\"));\n" +
			"const filler = [" + strings.Repeat(`"0123456789abcdef0123456789abcdef",`, 9000) + "];\n")
	}
	os.WriteFile(filepath.Join(core, "lib", "big.js"), big("old"), 0o644)
	os.WriteFile(filepath.Join(core, "lib", "small.js"), []byte(`module.exports = "small";`), 0o644)
	layout, run := laidOut(t, prefix, core)
	if out := run("run-driver"); out != "wasmwright: code cache: big.js none\nold small small.js\n" {
		t.Fatalf("first run printed %q", out)
	}
	files, _ := filepath.Glob(filepath.Join(layout, "v8-cache", "*"))
	if len(files) != 1 || !strings.HasPrefix(filepath.Base(files[0]), "big.js.") {
		t.Fatalf("v8-cache holds %v, want big.js's only", files)
	}
	if out := run("run-driver"); out != "wasmwright: code cache: big.js loaded\nold small small.js\n" {
		t.Fatalf("second run printed %q", out)
	}
	os.WriteFile(files[0], []byte("not compiled code"), 0o644)
	if out := run("run-driver"); out != "wasmwright: code cache: big.js rejected\nold small small.js\n" {
		t.Fatalf("run on refused data printed %q", out)
	}
	if b, _ := os.ReadFile(files[0]); string(b) == "not compiled code" {
		t.Fatal("the refused file was not written again")
	}
	if out := run("run-driver"); !strings.Contains(out, "big.js loaded") {
		t.Fatalf("run after the rewrite printed %q", out)
	}
	// A bundle changed in place, to a source of the same length (all V8
	// checks), runs as it now is: its code is not the old file's.
	if err := os.WriteFile(filepath.Join(core, "lib", "big.js"), big("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run("run-driver"); out != "wasmwright: code cache: big.js none\nnew small small.js\n" {
		t.Fatalf("run on the changed bundle printed %q", out)
	}
}

// laidOutDriver lays the built playwright-core out as Options does for a
// configured driver_dir (layoutDriver, in a fresh npm prefix) and, as
// Options does, clears the variables that name another driver: else
// playwright-go's version check runs the real node on our cli.js, a
// driver start of its own. It returns the layout's folder.
func laidOutDriver(t *testing.T) string {
	t.Helper()
	prefix := testenv.DriverPrefix(t)
	layout, err := layoutDriver(prefix, filepath.Join(prefix, "node_modules", "playwright-core"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"PLAYWRIGHT_CLI_PATH", "PLAYWRIGHT_NODEJS_PATH"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	return layout
}
