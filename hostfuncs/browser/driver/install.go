// Package driver finds what the browser runs on: the Playwright driver
// (an npm-installed playwright-core laid out as playwright-go wants it)
// and Chromium, failing with not_available and the fix named. Starting
// and sharing the driver is the browser's (drivers.go).
package driver

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/atomicfile"
)

// Version is the playwright-core release playwright-go v0.6401.0
// speaks. It comes from npm (the CDN is not reachable); see PLATFORM.md.
const Version = "1.64.1"

// NoDriver and NoChromium are not_available with the fix named; detail
// says what was seen (" (looked in ...)").
func NoDriver(detail string) error {
	return abi.Errorf(abi.CodeNotAvailable,
		"the Playwright driver (playwright-core %s) is not installed%s: run make deps (or npm install --prefix build/driver playwright-core@%s), or set browser.driver_dir",
		Version, detail, Version)
}

func NoChromium(detail string) error {
	return abi.Errorf(abi.CodeNotAvailable,
		"Chromium is not installed%s: apt-get install -y chromium, or set browser.executable", detail)
}

// Options finds the driver: dir (browser.driver_dir), then the environment
// (PLAYWRIGHT_CLI_PATH, PLAYWRIGHT_NODEJS_PATH), then build/driver beside
// the executable or in the repository. playwright-go wants a folder with
// package/ (playwright-core) and node; an npm prefix is laid out as one in
// <dir>/playwright-go (layoutDriver).
func Options(dir string, stderr io.Writer) (*pw.RunOptions, error) {
	opts := &pw.RunOptions{Verbose: false, SkipInstallBrowsers: true, Stderr: stderr, Stdout: stderr}
	if dir != "" {
		// playwright-go reads these itself and would let them win over the
		// config; the config is the more specific statement.
		os.Unsetenv("PLAYWRIGHT_CLI_PATH")
		os.Unsetenv("PLAYWRIGHT_NODEJS_PATH")
	}
	if dir == "" && os.Getenv("PLAYWRIGHT_CLI_PATH") != "" {
		if os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
			if _, err := exec.LookPath("node"); err != nil {
				return nil, NoDriver(" (PLAYWRIGHT_CLI_PATH is set but node is not on PATH; set PLAYWRIGHT_NODEJS_PATH)")
			}
		}
		if _, err := os.Stat(os.Getenv("PLAYWRIGHT_CLI_PATH")); err != nil {
			return nil, NoDriver(" (PLAYWRIGHT_CLI_PATH=" + os.Getenv("PLAYWRIGHT_CLI_PATH") + " does not exist)")
		}
		opts.DriverDirectory = filepath.Dir(os.Getenv("PLAYWRIGHT_CLI_PATH"))
		return opts, nil
	}
	var candidates []string
	if dir != "" {
		candidates = []string{dir}
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "build", "driver"), filepath.Join(filepath.Dir(exe), "..", "build", "driver"))
		}
		if root := repoRoot(); root != "" {
			candidates = append(candidates, filepath.Join(root, "build", "driver"))
		}
	}
	for _, cand := range candidates {
		if fileExists(filepath.Join(cand, "package", "cli.js")) {
			if !fileExists(filepath.Join(cand, "node")) && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
				continue
			}
			opts.DriverDirectory = cand
			return opts, nil
		}
		core := filepath.Join(cand, "node_modules", "playwright-core")
		if !fileExists(filepath.Join(core, "cli.js")) {
			continue
		}
		layout, err := layoutDriver(cand, core)
		if err != nil {
			return nil, NoDriver(fmt.Sprintf(" (could not prepare %s: %v)", cand, err))
		}
		opts.DriverDirectory = layout
		return opts, nil
	}
	where := strings.Join(candidates, ", ")
	if where == "" {
		where = "nowhere to look"
	}
	return nil, NoDriver(" (looked in " + where + ")")
}

// layoutDriver makes <dir>/playwright-go.early, the folder playwright-go
// wants, for an npm-installed playwright-core: node, a shell script of
// ours (nodeScript) that answers `--version` itself and hands every other
// command to the node on PATH, and package/cli.js, a script of ours
// (driverCLI) that runs playwright-core's own cli.js with its compiled
// code kept in v8-cache/ beside it, and starts Chromium early when the
// host asks (prelaunch.js, its commands kept in launch/). playwright-go
// runs `node cli.js --version` before every driver start to check the
// version: a node start of its own, on the way to every first browser
// call, beside the driver's start and the plugins' compile on a busy
// machine (measured 0.05 s quiet, 0.2-0.8 s at load 20, vs a few ms for
// the shell). The version is checked here instead, from playwright-core's
// package.json, at every start (Options): another installed version fails
// as the check would. (The folder's name is not an older layout's
// (playwright-go, whose node is a symlink; playwright-go.sh, whose cli.js
// keeps no code; playwright-go.cached, whose cli.js starts no browser):
// builds sharing a driver folder do not rewrite each other's.)
func layoutDriver(dir, core string) (string, error) {
	node := os.Getenv("PLAYWRIGHT_NODEJS_PATH")
	if node == "" {
		var err error
		if node, err = exec.LookPath("node"); err != nil {
			return "", errors.New("node is not on PATH")
		}
	}
	node, _ = filepath.Abs(node)
	core, _ = filepath.Abs(core)
	if err := checkVersion(core); err != nil {
		return "", err
	}
	layout := filepath.Join(dir, layoutName)
	if err := os.MkdirAll(filepath.Join(layout, "package"), 0o755); err != nil {
		return "", err
	}
	for _, f := range []struct {
		path, text string
		mode       os.FileMode
	}{
		{filepath.Join(layout, "node"), nodeScript(node), 0o755},
		{filepath.Join(layout, "package", "cli.js"), driverCLI(core, filepath.Join(layout, "v8-cache"), filepath.Join(layout, "launch")), 0o644},
	} {
		if cur, err := os.ReadFile(f.path); err == nil && string(cur) == f.text {
			continue
		}
		if err := atomicfile.Write(f.path, []byte(f.text), f.mode, ".tmp-*"); err != nil {
			return "", err
		}
	}
	return layout, nil
}

// checkVersion fails unless the playwright-core at core is Version.
func checkVersion(core string) error {
	var pkg struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(core, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	switch {
	case err != nil:
		return fmt.Errorf("reading playwright-core's version: %v", err)
	case pkg.Version != Version:
		return fmt.Errorf("playwright-core %s is installed there, not %s", pkg.Version, Version)
	}
	return nil
}

// nodeScript is the node of layoutDriver's folder: playwright-go's version
// check (`node <cli.js> --version`) is answered with the version
// checkVersion saw, without starting node; anything else runs the real
// node (exec: the driver keeps the process playwright-go started).
func nodeScript(node string) string {
	return fmt.Sprintf(`#!/bin/sh
# Written by wasmwright (hostfuncs/browser/driver layoutDriver): the host
# checked playwright-core's version; answer playwright-go's check without
# starting node.
if [ "$#" -eq 2 ] && [ "$2" = "--version" ]; then
  echo "Version %s"
  exit 0
fi
exec %s "$@"
`, Version, shellQuote(node))
}

// shellQuote is s as one single-quoted shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// driverCLI is the cli.js of layoutDriver's folder, for playwright-core
// installed at core: it starts Chromium early when the host asks, with
// the commands kept in launchDir (prelaunch.js), keeps V8's compiled code
// of playwright-core's bundles in cacheDir between driver starts
// (codecache.js), then runs playwright-core's cli.js (the folder's node
// answers the version check).
func driverCLI(core, cacheDir, launchDir string) string {
	quote := func(s string) string {
		b, _ := json.Marshal(s) // a JSON string is a JavaScript one
		return string(b)
	}
	early := strings.NewReplacer("})(LAUNCH_DIR);", "})("+quote(launchDir)+");").Replace(prelaunchJS)
	loader := strings.NewReplacer("CORE, CACHE_DIR", quote(core)+", "+quote(cacheDir)).Replace(codeCacheJS)
	return fmt.Sprintf(`// Written by wasmwright (hostfuncs/browser layoutDriver): run
// playwright-core's cli.js (the folder's node answers the version check).
%s
%s
require(%s + "/cli.js");
`, early, loader, quote(core))
}

// codeCacheJS is the loader driverCLI puts before playwright-core's
// cli.js; its last line's arguments are filled in.
//
//go:embed codecache.js
var codeCacheJS string

// prelaunchJS is the early launch driverCLI puts first; its last line's
// argument is filled in.
//
//go:embed prelaunch.js
var prelaunchJS string

// layoutName is the folder layoutDriver lays out in an npm prefix.
const layoutName = "playwright-go.early"

// prelaunchEnv is the variable the driver is started with when its first
// launch is known: JSON {"key", "executable"}, the key naming the launch
// options (Prelaunch). Only a driver in a layoutDriver folder reads it
// (hasPrelaunch); it takes it out of its environment before anything
// else runs.
const prelaunchEnv = "WASMWRIGHT_PRELAUNCH"

// hasPrelaunch reports whether the driver folder dir (Options') starts
// Chromium early when asked: a layoutDriver folder.
func hasPrelaunch(dir string) bool {
	return filepath.Base(dir) == layoutName && fileExists(filepath.Join(dir, "package", "cli.js"))
}

// PrelaunchEnviron is env (a driver's environment) with prelaunch
// (Prelaunch's value) for a driver in folder dir that reads it, a copy;
// env itself where there is nothing to add.
func PrelaunchEnviron(dir, prelaunch string, env map[string]string) map[string]string {
	if prelaunch == "" || !hasPrelaunch(dir) {
		return env
	}
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	out[prelaunchEnv] = prelaunch
	return out
}

// Prelaunch is PrelaunchEnv's value for a launch of executable with
// options (any value that marshals to JSON: the launch's whole options),
// "" when they cannot be named.
func Prelaunch(executable string, options any) string {
	b, err := json.Marshal(options)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(append([]byte(Version+"\x00"+executable+"\x00"), b...))
	v, _ := json.Marshal(map[string]string{"key": hex.EncodeToString(sum[:16]), "executable": executable})
	return string(v)
}

// repoRoot is the source tree this package was built from, when it still
// exists (tests, go run).
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
	if fileExists(filepath.Join(root, "go.mod")) {
		return root
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Chromium returns the browser binary: executable (browser.executable)
// when set, else Debian's real binary, else one on PATH.
func Chromium(executable string) (string, error) {
	if executable != "" {
		if !fileExists(executable) {
			return "", NoChromium(" (browser.executable = " + executable + " does not exist)")
		}
		return executable, nil
	}
	// The real binary launches a little faster than Debian's wrapper.
	if fileExists("/usr/lib/chromium/chromium") {
		return "/usr/lib/chromium/chromium", nil
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", NoChromium(" (no /usr/lib/chromium/chromium and no chromium on PATH)")
}

// HasDisplay reports whether a window can be shown.
func HasDisplay() bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}
