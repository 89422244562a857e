package browser

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

// DriverVersion is the playwright-core release playwright-go v0.6401.0
// speaks. It comes from npm (the CDN is not reachable); see PLATFORM.md.
const DriverVersion = "1.64.1"

// chromiumFlags are what Debian Chromium needs as root on a closed network:
// without the background-networking flags it floods the network with
// refused connections.
var chromiumFlags = []string{
	"--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
	"--disable-dev-shm-usage",
}

// errNoDriver and errNoChromium are not_available with the fix named.
func errNoDriver(detail string) error {
	return abi.Errorf(abi.CodeNotAvailable,
		"the Playwright driver (playwright-core %s) is not installed%s: run make deps (or npm install --prefix build/driver playwright-core@%s), or set browser.driver_dir",
		DriverVersion, detail, DriverVersion)
}

func errNoChromium(detail string) error {
	return abi.Errorf(abi.CodeNotAvailable,
		"Chromium is not installed%s: apt-get install -y chromium, or set browser.executable", detail)
}

// runOptions finds the driver: Config.DriverDir, then the environment
// (PLAYWRIGHT_CLI_PATH, PLAYWRIGHT_NODEJS_PATH), then build/driver beside
// the executable or in the repository. playwright-go wants a folder with
// package/ (playwright-core) and node; an npm prefix is laid out as one in
// <dir>/playwright-go (layoutDriver).
func runOptions(cfg Config, stderr io.Writer) (*pw.RunOptions, error) {
	opts := &pw.RunOptions{Verbose: false, SkipInstallBrowsers: true, Stderr: stderr, Stdout: stderr}
	if cfg.DriverDir != "" {
		// playwright-go reads these itself and would let them win over the
		// config; the config is the more specific statement.
		os.Unsetenv("PLAYWRIGHT_CLI_PATH")
		os.Unsetenv("PLAYWRIGHT_NODEJS_PATH")
	}
	if cfg.DriverDir == "" && os.Getenv("PLAYWRIGHT_CLI_PATH") != "" {
		if os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
			if _, err := exec.LookPath("node"); err != nil {
				return nil, errNoDriver(" (PLAYWRIGHT_CLI_PATH is set but node is not on PATH; set PLAYWRIGHT_NODEJS_PATH)")
			}
		}
		if _, err := os.Stat(os.Getenv("PLAYWRIGHT_CLI_PATH")); err != nil {
			return nil, errNoDriver(" (PLAYWRIGHT_CLI_PATH=" + os.Getenv("PLAYWRIGHT_CLI_PATH") + " does not exist)")
		}
		opts.DriverDirectory = filepath.Dir(os.Getenv("PLAYWRIGHT_CLI_PATH"))
		return opts, nil
	}
	var candidates []string
	if cfg.DriverDir != "" {
		candidates = []string{cfg.DriverDir}
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "build", "driver"), filepath.Join(filepath.Dir(exe), "..", "build", "driver"))
		}
		if root := repoRoot(); root != "" {
			candidates = append(candidates, filepath.Join(root, "build", "driver"))
		}
	}
	for _, dir := range candidates {
		if fileExists(filepath.Join(dir, "package", "cli.js")) {
			if !fileExists(filepath.Join(dir, "node")) && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
				continue
			}
			opts.DriverDirectory = dir
			return opts, nil
		}
		core := filepath.Join(dir, "node_modules", "playwright-core")
		if !fileExists(filepath.Join(core, "cli.js")) {
			continue
		}
		layout, err := layoutDriver(dir, core)
		if err != nil {
			return nil, errNoDriver(fmt.Sprintf(" (could not prepare %s: %v)", dir, err))
		}
		opts.DriverDirectory = layout
		return opts, nil
	}
	where := strings.Join(candidates, ", ")
	if where == "" {
		where = "nowhere to look"
	}
	return nil, errNoDriver(" (looked in " + where + ")")
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
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if fileExists(filepath.Join(root, "go.mod")) {
		return root
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// findChromium returns the browser binary.
func findChromium(cfg Config) (string, error) {
	if cfg.Executable != "" {
		if !fileExists(cfg.Executable) {
			return "", errNoChromium(" (browser.executable = " + cfg.Executable + " does not exist)")
		}
		return cfg.Executable, nil
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
	return "", errNoChromium(" (no /usr/lib/chromium/chromium and no chromium on PATH)")
}

// hasDisplay reports whether a window can be shown.
func hasDisplay() bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// DriverOptions are the options that start the Playwright driver the
// host would use with cfg (runOptions: browser.driver_dir, the
// environment, then build/driver), for a program or test that drives a
// browser of its own beside the host's and should find the driver the
// same way, or fail with the same words.
func DriverOptions(cfg Config) (*pw.RunOptions, error) {
	return runOptions(cfg, io.Discard)
}

// Preflight reports whether this host can run a local browser: the driver
// is found and Chromium exists. It starts nothing. With a remote browser
// configured only the driver is checked.
func Preflight(cfg Config) error {
	if _, err := runOptions(cfg, io.Discard); err != nil {
		return err
	}
	if cfg.RemoteWS == "" && cfg.RemoteCDP == "" {
		if _, err := findChromium(cfg); err != nil {
			return err
		}
	}
	return nil
}
