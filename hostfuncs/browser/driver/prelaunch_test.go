package driver

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/internal/testenv"
)

// spawnLikePlaywright is a stand-in playwright-core cli.js that spawns
// $FAKE_BROWSER as playwright-core 1.64.1 launches Chromium (launchProcess:
// a fresh profile folder in the temporary folder, the DevTools pipe, a
// process group of its own, the driver's environment), prints what the
// browser printed, and closes its pipe, which ends the fake browser.
const spawnLikePlaywright = `
const cp = require("child_process"), fs = require("fs"), os = require("os"), path = require("path");
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "playwright_chromiumdev_profile-"));
const args = ["--a", ...(process.env.FAKE_ARG ? [process.env.FAKE_ARG] : []), "--user-data-dir=" + profile, "--remote-debugging-pipe", "--no-startup-window"];
const c = cp.spawn(process.env.FAKE_BROWSER, args, {detached: true, env: process.env, cwd: undefined, shell: undefined, stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"]});
let out = "";
c.stdout.on("data", (d) => { out += d; if (out.endsWith("\n")) c.stdio[3].end(); });
c.on("close", () => { fs.rmSync(profile, {recursive: true, force: true}); process.stdout.write(out + "asked " + profile + "\n"); });
`

// fakeBrowser writes a browser that logs each start (its pid, its
// profile, and whether it was given WASMWRIGHT_PRELAUNCH) to log, says the
// same on stdout, and runs until its DevTools pipe (fd 3) closes.
func fakeBrowser(t *testing.T, dir, log string) string {
	t.Helper()
	p := filepath.Join(dir, "fake-browser")
	script := `#!/bin/sh
for a in "$@"; do case "$a" in --user-data-dir=*) profile="${a#--user-data-dir=}";; esac; done
line="pid $$ profile $profile env $(env | grep -c '^WASMWRIGHT_PRELAUNCH=')"
echo "$line" >> '` + log + `'
echo "$line"
cat <&3 >/dev/null
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

var startLine = regexp.MustCompile(`pid (\d+) profile (\S+) env (\d+)`)

// The driver's cli.js, asked for an early launch, spawns the command
// playwright-core spawned last time for that key at once, and hands it to
// playwright-core's own spawn of the same command (its profile folder
// aside): one browser process, the early one, with nothing of ours in its
// environment and its profile removed when it closes. Asked for another
// command, playwright-core gets a process of its own, the early one is
// killed, and the new command is kept for the next start.
func TestDriverPrelaunchHandsTheEarlyBrowserToTheLaunch(t *testing.T) {
	testenv.Heavy(t, "node")
	t.Parallel()
	prefix := t.TempDir()
	log := filepath.Join(prefix, "starts")
	browser := fakeBrowser(t, prefix, log)
	core := fakeCore(t, prefix, Version, spawnLikePlaywright)
	layout, err := layoutDriver(prefix, core)
	if err != nil {
		t.Fatal(err)
	}
	if !hasPrelaunch(layout) {
		t.Fatalf("hasPrelaunch(%s) = false", layout)
	}
	ask := Prelaunch(browser, map[string]any{"args": []string{"--a"}})
	type started struct{ pid, profile, env string }
	run := func(env ...string) (stdout, stderr string, starts []started) {
		t.Helper()
		os.Remove(log)
		cmd := exec.Command(filepath.Join(layout, "node"), filepath.Join(layout, "package", "cli.js"), "run-driver")
		cmd.Env = append(os.Environ(), append([]string{"FAKE_BROWSER=" + browser}, env...)...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("driver: %v\n%s", err, errOut.String())
		}
		b, _ := os.ReadFile(log)
		for _, m := range startLine.FindAllStringSubmatch(string(b), -1) {
			starts = append(starts, started{m[1], m[2], m[3]})
		}
		return out.String(), errOut.String(), starts
	}
	gone := func(s started) {
		t.Helper()
		if _, err := os.Stat(s.profile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("profile %s of pid %s left behind (%v)", s.profile, s.pid, err)
		}
	}
	withAsk := prelaunchEnv + "=" + ask

	// Nothing kept yet: the launch spawns its own, and is kept.
	out, errs, starts := run(withAsk)
	if !strings.Contains(errs, "early launch: none") || len(starts) != 1 || starts[0].env != "0" {
		t.Fatalf("first start: stderr %q, starts %v", errs, starts)
	}
	if !strings.Contains(out, "asked "+starts[0].profile) {
		t.Fatalf("first start: the browser did not get the launch's own profile: %q", out)
	}
	kept, _ := filepath.Glob(filepath.Join(layout, "launch", "*.json"))
	if len(kept) != 1 {
		t.Fatalf("launch/ holds %v", kept)
	}

	// Kept: the early process is the launch's.
	out, errs, starts = run(withAsk)
	if len(starts) != 1 || starts[0].env != "0" || !strings.Contains(errs, "early launch: taken (pid "+starts[0].pid+")") {
		t.Fatalf("second start: stderr %q, starts %v", errs, starts)
	}
	if !strings.Contains(out, "pid "+starts[0].pid+" ") || strings.Contains(out, "asked "+starts[0].profile) {
		t.Fatalf("second start: the launch did not get the early browser: %q (started %v)", out, starts)
	}
	gone(starts[0])

	// Another command asked for: a process of its own; the early one is
	// killed, its profile removed, and the new command kept.
	out, errs, starts = run(withAsk, "FAKE_ARG=--b")
	m := regexp.MustCompile(`early launch: not the launch asked for \(pid (\d+)\)`).FindStringSubmatch(errs)
	if m == nil || len(starts) == 0 {
		t.Fatalf("changed launch: stderr %q, starts %v", errs, starts)
	}
	asked := starts[len(starts)-1]
	if asked.pid == m[1] || !strings.Contains(out, "pid "+asked.pid+" ") || !strings.Contains(out, "asked "+asked.profile) {
		t.Fatalf("changed launch: the browser printed %q, want a start of its own (early: %s)", out, m[1])
	}
	waitGone(t, m[1])
	for _, s := range starts {
		gone(s)
	}
	_, errs, starts = run(withAsk, "FAKE_ARG=--b")
	if len(starts) != 1 || !strings.Contains(errs, "early launch: taken") {
		t.Fatalf("after the change: stderr %q, starts %v", errs, starts)
	}

	// Not asked (another host, a persistent profile's driver): nothing
	// early, not a word.
	_, errs, starts = run()
	if strings.Contains(errs, "early launch") || len(starts) != 1 {
		t.Fatalf("not asked: stderr %q, starts %v", errs, starts)
	}
	// Asked for another executable than the kept command's: nothing
	// early.
	other := Prelaunch(browser+"-other", map[string]any{"args": []string{"--a"}})
	os.Rename(kept[0], filepath.Join(layout, "launch", keyOf(t, other)+".json"))
	_, errs, starts = run(prelaunchEnv + "=" + other)
	if !strings.Contains(errs, "early launch: none") || len(starts) != 1 {
		t.Fatalf("another executable: stderr %q, starts %v", errs, starts)
	}
}

// keyOf is the key in a Prelaunch value.
func keyOf(t *testing.T, prelaunch string) string {
	t.Helper()
	m := regexp.MustCompile(`"key":"([0-9a-f]+)"`).FindStringSubmatch(prelaunch)
	if m == nil {
		t.Fatalf("no key in %s", prelaunch)
	}
	return m[1]
}

// waitGone waits until process pid has exited.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + pid); errors.Is(err, os.ErrNotExist) {
			return
		}
		if b, _ := os.ReadFile("/proc/" + pid + "/stat"); strings.Contains(string(b), ") Z ") {
			return // killed, not yet reaped
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The real driver, asked to, launches Chromium while it starts, and the
// launch after takes that browser: it works (a page shows), and closing
// it removes its profile.
func TestDriverPrelaunchLaunchesChromium(t *testing.T) {
	testenv.Heavy(t, "the Playwright driver and Chromium")
	exe, err := Chromium("")
	if err != nil {
		t.Skip(err)
	}
	layout := laidOutDriver(t)
	o := pw.BrowserTypeLaunchOptions{ExecutablePath: pw.String(exe), Headless: pw.Bool(true),
		Args: []string{"--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"}}
	t.Setenv(prelaunchEnv, Prelaunch(exe, o))
	// launch starts the driver, launches, shows a page, closes the browser
	// and stops the driver; it returns what the driver said and the
	// browser's profile folder.
	launch := func() (string, string) {
		t.Helper()
		var stderr strings.Builder
		p, err := pw.Run(&pw.RunOptions{DriverDirectory: layout, SkipInstallBrowsers: true, Stderr: &stderr})
		if err != nil {
			t.Fatalf("the driver did not start from %s: %v", layout, err)
		}
		b, err := p.Chromium.Launch(o)
		if err != nil {
			p.Stop()
			t.Fatalf("launch: %v\n%s", err, stderr.String())
		}
		page, err := b.NewPage()
		if err != nil {
			t.Fatal(err)
		}
		if err := page.SetContent("<title>early</title>"); err != nil {
			t.Fatal(err)
		}
		if title, err := page.Title(); err != nil || title != "early" {
			t.Fatalf("title %q %v", title, err)
		}
		profile := ""
		if m := regexp.MustCompile(`early launch: taken \(pid (\d+)\)`).FindStringSubmatch(stderr.String()); m != nil {
			cmdline, _ := os.ReadFile("/proc/" + m[1] + "/cmdline")
			for _, a := range strings.Split(string(cmdline), "\x00") {
				if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
					profile = v
				}
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		return stderr.String(), profile
	}
	if out, _ := launch(); !strings.Contains(out, "early launch: none") {
		t.Fatalf("first start: %q", out)
	}
	out, profile := launch()
	if !strings.Contains(out, "early launch: taken") || profile == "" {
		t.Fatalf("second start did not take the early browser (profile %q): %q", profile, out)
	}
	if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the early browser's profile %s is left (%v)", profile, err)
	}
}
