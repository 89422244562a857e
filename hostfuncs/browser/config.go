package browser

import (
	"errors"
	"fmt"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Config is the [browser] table of the host's TOML config. The zero value
// is usable: a local headless-or-headed Chromium found on PATH, started on
// the first browser call.
type Config struct {
	// Headed is "auto" (default: headed only where DISPLAY or
	// WAYLAND_DISPLAY is set), "true" (headed; without a display it falls
	// back to headless and the first result says so) or "false".
	Headed string `toml:"headed"`
	// Proxy routes every session through an upstream proxy. It must carry a
	// scheme: http://, https://, socks4:// or socks5://.
	Proxy string `toml:"proxy"`
	// Executable is the Chromium binary. Default: /usr/lib/chromium/chromium,
	// then chromium or chromium-browser on PATH.
	Executable string `toml:"executable"`
	// DriverDir holds the Playwright driver: either an npm prefix where
	// playwright-core@1.64.1 is installed (node_modules/playwright-core), or
	// a playwright-go layout (package/ and node). Default: env
	// PLAYWRIGHT_CLI_PATH/PLAYWRIGHT_NODEJS_PATH, then build/driver beside
	// the executable or in the repository. In an npm prefix the host lays
	// out playwright-go.early, whose v8-cache keeps playwright-core's
	// compiled code between driver starts (a third less CPU to start), and
	// whose launch/ keeps the command of the last launch, so the next
	// driver starts Chromium while it loads: keep the prefix writable.
	DriverDir string `toml:"driver_dir"`
	// RemoteWS is a Playwright server websocket (ws://host:port/...). When
	// set, no local browser is launched.
	RemoteWS string `toml:"remote_ws"`
	// RemoteCDP is a Chrome DevTools Protocol endpoint (http://host:9222).
	RemoteCDP string `toml:"remote_cdp"`
	// Grid is a Selenium Grid 4 hub or router (http://hub:4444): each
	// session opens a browser of its own on one of the grid's nodes,
	// started with the host's launch flags (grid.go). No local browser.
	Grid string `toml:"grid"`
	// GridCapabilities are extra WebDriver capabilities sent with every
	// session request (e.g. platformName, se:* keys, goog:chromeOptions
	// binary and args). Those that would undo the host's launch flags are
	// refused (gridCapsProblem).
	GridCapabilities GridCaps `toml:"grid_capabilities"`
	// GridQueueTimeout bounds how long a session open waits in the grid's
	// queue for a free slot (default 2m); then the call fails
	// resource_limit.
	GridQueueTimeout Duration `toml:"grid_queue_timeout"`
	// GridRegistrationSecret is the hub's --registration-secret, when it
	// runs with one: the host needs it to withdraw its own session
	// requests from the hub's queue at grid_queue_timeout. Without it
	// such a hub keeps them queued until its own
	// --session-request-timeout. It is a secret: write
	// "${GRID_SECRET}" and set the variable, rather than the value.
	GridRegistrationSecret string `toml:"grid_registration_secret"`
	// GridCDP is where the host dials a grid browser's CDP endpoint:
	// "hub" (the default: the session's se:cdp, relayed by the hub) or
	// "node" (the same endpoint on the node that runs the browser, as the
	// hub lists it: one relay fewer on every CDP message; the host must
	// reach the nodes' port, as it already does to end orphaned sessions).
	// The browser's own traffic is unchanged: it still reaches only the
	// host's egress proxy.
	GridCDP string `toml:"grid_cdp"`
	// IdleTimeout closes sessions untouched this long (default 10m; a
	// session a human is driving is never closed).
	IdleTimeout Duration `toml:"idle_timeout"`
	// MaxContexts caps open sessions; the least recently used is closed to
	// make room (default 16).
	MaxContexts int `toml:"max_contexts"`
	// Prewarm, on unless set to false, starts the driver and the browser,
	// and compiles the plugins a first browser call needs, when
	// `wasmwright serve` starts, in the background, rather than on the
	// first call (which would then wait for the driver and Chromium to
	// start after its own work). A start that fails is reported by the
	// first browser call, with its code. Off, nothing starts before a
	// call needs it (PrewarmAtStart).
	Prewarm *bool `toml:"prewarm"`
	// ProfilesDir holds persistent profiles, one folder per personality.
	ProfilesDir string `toml:"profiles_dir"`
	// PersistentProfiles names the personalities whose sessions keep
	// cookies and storage in ProfilesDir across sessions and restarts.
	PersistentProfiles []string `toml:"persistent_profiles"`
	// WorkspaceDir receives screenshots and PDFs, in a folder per
	// personality (default: <tmp>/wasmwright/workspace).
	WorkspaceDir string `toml:"workspace_dir"`
	// UploadDir is the only folder files may be uploaded from. Empty: no
	// uploads.
	UploadDir string `toml:"upload_dir"`
	// ActionTimeout bounds clicks, typing and waits (default 5s).
	ActionTimeout Duration `toml:"action_timeout"`
	// NavigationTimeout bounds page loads (default 30s).
	NavigationTimeout Duration `toml:"navigation_timeout"`
	// StretchWithLoad multiplies action_timeout and navigation_timeout by
	// the load average per CPU (1x-4x, procfs.Stretch) when a wait starts.
	// Off by default: a configured bound is the bound. The host sets it
	// from [host] stretch_with_load; it is not a [browser] key.
	StretchWithLoad bool `toml:"-"`
	// Args are extra Chromium flags.
	Args []string `toml:"args"`
	// DetectMaxMB caps how much of a loaded page's HTML, and of its
	// rendered text, the bot-wall detector reads, in MiB (default 4): a
	// wall's marker may sit anywhere in the document.
	DetectMaxMB int `toml:"detect_max_mb"`
	// ReadMaxBytes caps the text browser_read returns (default 64 KiB); a
	// call may ask for less, never more.
	ReadMaxBytes int `toml:"read_max_bytes"`
}

// Duration is a time.Duration written as a string ("10m", "5s") in TOML.
type Duration time.Duration

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("duration %q: %w (write e.g. \"10m\" or \"5s\")", b, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes it back.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Defaults.
const (
	DefaultIdleTimeout       = 10 * time.Minute
	DefaultMaxContexts       = 16
	DefaultActionTimeout     = 5 * time.Second
	DefaultNavigationTimeout = 30 * time.Second
	DefaultDetectMaxMB       = 4
	DefaultReadMaxBytes      = 64 << 10
	DefaultGridQueueTimeout  = 2 * time.Minute
)

// safeName is what a personality id must look like to name a folder.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Validate reports every problem in the config at once.
func (c Config) Validate() error {
	var errs []error
	switch strings.ToLower(c.Headed) {
	case "", "auto", "true", "false":
	default:
		errs = append(errs, fmt.Errorf("browser.headed = %q: use \"auto\", \"true\" or \"false\"", c.Headed))
	}
	if c.Proxy != "" {
		if err := validateProxy(c.Proxy); err != nil {
			errs = append(errs, fmt.Errorf("browser.proxy: %w", err))
		}
	}
	if c.RemoteWS != "" && c.RemoteCDP != "" {
		errs = append(errs, errors.New("browser.remote_ws and browser.remote_cdp are both set: choose one"))
	}
	errs = append(errs, c.validateGrid()...)
	if c.RemoteWS != "" {
		if u, err := url.Parse(c.RemoteWS); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			errs = append(errs, fmt.Errorf("browser.remote_ws = %q: want ws://host:port/path or wss://...", c.RemoteWS))
		}
	}
	if c.RemoteCDP != "" {
		if u, err := url.Parse(c.RemoteCDP); err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			errs = append(errs, fmt.Errorf("browser.remote_cdp = %q: want http://host:9222 or a ws:// DevTools URL", c.RemoteCDP))
		}
	}
	for _, a := range c.Args {
		if sw := forbiddenArg(a); sw != "" {
			errs = append(errs, fmt.Errorf("browser.args: %s would give the browser a way out besides the egress proxy: remove it (set an upstream proxy with browser.proxy)", sw))
		}
	}
	if c.IdleTimeout < 0 || c.ActionTimeout < 0 || c.NavigationTimeout < 0 {
		errs = append(errs, errors.New("browser timeouts must not be negative"))
	}
	if c.MaxContexts < 0 {
		errs = append(errs, errors.New("browser.max_contexts must not be negative"))
	}
	if c.DetectMaxMB < 0 || c.DetectMaxMB > 8 {
		errs = append(errs, fmt.Errorf("browser.detect_max_mb = %d: give a size in MiB from 1 to 8 (0 or absent: %d); the detector gets the HTML and the text, each up to this size, in one plugin call", c.DetectMaxMB, DefaultDetectMaxMB))
	}
	if c.ReadMaxBytes < 0 {
		errs = append(errs, fmt.Errorf("browser.read_max_bytes = %d: give a positive byte count (0 or absent: %d)", c.ReadMaxBytes, DefaultReadMaxBytes))
	}
	if len(c.PersistentProfiles) > 0 && c.ProfilesDir == "" {
		errs = append(errs, errors.New("browser.persistent_profiles is set but browser.profiles_dir is empty: name a folder for the profiles"))
	}
	for _, p := range c.PersistentProfiles {
		if !safeName.MatchString(p) {
			errs = append(errs, fmt.Errorf("browser.persistent_profiles: %q is not a valid personality id ([A-Za-z0-9_-]+); it could never get a profile", p))
		}
	}
	return errors.Join(errs...)
}

// validateProxy insists on an explicit scheme: a bare host:port is refused
// rather than guessed at.
func validateProxy(p string) error {
	u, err := url.Parse(p)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not a proxy URL: write it with its scheme, e.g. http://%s", p, p)
	}
	switch u.Scheme {
	case "http", "https", "socks4", "socks5":
		return nil
	}
	return fmt.Errorf("%q: scheme %q not supported (http, https, socks4, socks5)", p, u.Scheme)
}

// PrewarmAtStart reports whether serve starts the browser at start
// (Prewarm: on unless set to false).
func (c Config) PrewarmAtStart() bool { return c.Prewarm == nil || *c.Prewarm }

func (c *Config) withDefaults() {
	if c.IdleTimeout == 0 {
		c.IdleTimeout = Duration(DefaultIdleTimeout)
	}
	if c.MaxContexts == 0 {
		c.MaxContexts = DefaultMaxContexts
	}
	if c.ActionTimeout == 0 {
		c.ActionTimeout = Duration(DefaultActionTimeout)
	}
	if c.NavigationTimeout == 0 {
		c.NavigationTimeout = Duration(DefaultNavigationTimeout)
	}
	if c.DetectMaxMB == 0 {
		c.DetectMaxMB = DefaultDetectMaxMB
	}
	if c.ReadMaxBytes == 0 {
		c.ReadMaxBytes = DefaultReadMaxBytes
	}
	if c.GridQueueTimeout == 0 {
		c.GridQueueTimeout = Duration(DefaultGridQueueTimeout)
	}
	if c.Headed == "" {
		c.Headed = "auto"
	}
	c.Headed = strings.ToLower(c.Headed)
}

// actionWait is action_timeout as the operator wrote it, or, where they
// opted in ([host] stretch_with_load), stretched by how busy the machine
// is now (procfs.Stretch: the load average per CPU, at most 4x). Errors
// name the bound waited (RATIONALE.md, "Timeouts mean what was written").
func (c Config) actionWait() time.Duration { return c.stretched(c.ActionTimeout.D()) }

// navigationWait is navigation_timeout, stretched only as actionWait is.
func (c Config) navigationWait() time.Duration { return c.stretched(c.NavigationTimeout.D()) }

func (c Config) stretched(d time.Duration) time.Duration {
	if c.StretchWithLoad {
		return procfs.Stretched(d)
	}
	return d
}
