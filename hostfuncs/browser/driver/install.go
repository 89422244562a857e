// Package driver finds what the browser runs on: the Playwright driver
// (an npm-installed playwright-core laid out as playwright-go wants it)
// and Chromium, failing with not_available and the fix named. Starting
// and sharing the driver is the browser's (drivers.go).
package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
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

// layoutDriver makes <dir>/playwright-go, the folder playwright-go wants,
// for an npm-installed playwright-core: node, a symlink to the node on
// PATH, and package/cli.js, a script of ours (driverCLI) that runs
// playwright-core's own cli.js, except for `--version`, which it answers
// from playwright-core's package.json. playwright-go runs `cli.js
// --version` before every driver start to check the version, and
// playwright-core's cli.js loads all of playwright-core to print that
// line: a node start and a load as long as the driver's own, before it
// (measured 0.35 s vs 0.05 s for the script's answer on a quiet machine,
// 3-4 s vs 0.4-1.2 s at load 15-40), on the way to every first browser
// call. The version it prints is the installed one, so the check keeps
// its meaning.
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
	layout := filepath.Join(dir, "playwright-go")
	if err := os.MkdirAll(filepath.Join(layout, "package"), 0o755); err != nil {
		return "", err
	}
	link := filepath.Join(layout, "node")
	if cur, err := os.Readlink(link); err != nil || cur != node {
		os.Remove(link)
		if err := os.Symlink(node, link); err != nil && !os.IsExist(err) {
			return "", err
		}
	}
	cli := filepath.Join(layout, "package", "cli.js")
	want := driverCLI(core)
	if cur, err := os.ReadFile(cli); err != nil || string(cur) != want {
		if err := writeFileAtomically(cli, []byte(want)); err != nil {
			return "", err
		}
	}
	return layout, nil
}

// driverCLI is the cli.js of layoutDriver's folder, for playwright-core
// installed at core.
func driverCLI(core string) string {
	quoted, _ := json.Marshal(core) // a JSON string is a JavaScript one
	return fmt.Sprintf(`// Written by wasmwright (hostfuncs/browser layoutDriver): playwright-go
// asks "cli.js --version" before each driver start; answer it without
// loading playwright-core, and run playwright-core's cli.js for the rest.
const core = %s;
if (process.argv.length === 3 && process.argv[2] === "--version") {
  console.log("Version " + require(core + "/package.json").version);
} else {
  require(core + "/cli.js");
}
`, quoted)
}

// writeFileAtomically writes b beside dst and renames it into place, so a
// driver starting in another process never reads half a file.
func writeFileAtomically(dst string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
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
