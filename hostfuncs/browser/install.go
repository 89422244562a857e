package browser

import (
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
// <dir>/layout with two symlinks.
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

// layoutDriver makes <dir>/layout/{package,node} point at an npm-installed
// playwright-core and the node on PATH.
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
	layout := filepath.Join(dir, "layout")
	if err := os.MkdirAll(layout, 0o755); err != nil {
		return "", err
	}
	for name, target := range map[string]string{"package": core, "node": node} {
		link := filepath.Join(layout, name)
		if cur, err := os.Readlink(link); err == nil && cur == target {
			continue
		}
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil && !os.IsExist(err) {
			return "", err
		}
	}
	return layout, nil
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
