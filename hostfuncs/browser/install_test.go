package browser

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pw "github.com/mxschmitt/playwright-go"
)

// The driver folder made for an npm-installed playwright-core answers
// playwright-go's `cli.js --version` from playwright-core's package.json,
// without loading playwright-core (a node start and a load as long as the
// driver's own), and hands every other command to playwright-core's own
// cli.js with its arguments.
func TestDriverLayoutAnswersTheVersionCheckItself(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	prefix := t.TempDir()
	core := filepath.Join(prefix, "node_modules", "playwright-core")
	if err := os.MkdirAll(core, 0o755); err != nil {
		t.Fatal(err)
	}
	loaded := filepath.Join(prefix, "loaded")
	os.WriteFile(filepath.Join(core, "package.json"), []byte(`{"name": "playwright-core", "version": "`+DriverVersion+`"}`), 0o644)
	os.WriteFile(filepath.Join(core, "cli.js"), []byte(`require("fs").writeFileSync(`+jsString(loaded)+`, JSON.stringify(process.argv.slice(2)));`), 0o644)
	layout, err := layoutDriver(prefix, core)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(layout, "node"), append([]string{filepath.Join(layout, "package", "cli.js")}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("cli.js %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("--version"); out != "Version "+DriverVersion+"\n" {
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

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The real driver starts from such a folder, with playwright-go's version
// check answered by it.
func TestDriverStartsFromItsLayout(t *testing.T) {
	opts, err := runOptions(Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	core := realCore(opts.DriverDirectory)
	if core == "" {
		t.Fatalf("could not find playwright-core's own cli.js from %s", opts.DriverDirectory)
	}
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

// realCore is playwright-core's own folder (not a layout of ours, whose
// cli.js is a script we wrote): PLAYWRIGHT_CLI_PATH's, else the npm install
// beside the driver folder. An earlier test may have unset the variable
// (runOptions does for a config's driver_dir).
func realCore(driverDir string) string {
	var cands []string
	if cli := os.Getenv("PLAYWRIGHT_CLI_PATH"); cli != "" {
		cands = append(cands, filepath.Dir(cli))
	}
	cands = append(cands, filepath.Join(driverDir, "package"), filepath.Join(driverDir, "node_modules", "playwright-core"),
		filepath.Join(filepath.Dir(driverDir), "node_modules", "playwright-core"))
	for _, c := range cands {
		r, err := filepath.EvalSymlinks(filepath.Join(c, "cli.js"))
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(r); err == nil && !strings.Contains(string(b), "Written by wasmwright") {
			return filepath.Dir(r)
		}
	}
	return ""
}
