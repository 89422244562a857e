package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPluginsHonoursTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WASMWRIGHT_PLUGINS_DIR", dir)
	if got := Plugins(t, "SHA256SUMS"); got != dir {
		t.Fatalf("Plugins = %s, want $WASMWRIGHT_PLUGINS_DIR %s", got, dir)
	}
}

func TestDriverKeepsAGivenDriver(t *testing.T) {
	t.Setenv("PLAYWRIGHT_CLI_PATH", "/given/cli.js")
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", "/given/node")
	Driver(t)
	if os.Getenv("PLAYWRIGHT_CLI_PATH") != "/given/cli.js" || os.Getenv("PLAYWRIGHT_NODEJS_PATH") != "/given/node" {
		t.Fatal("Driver replaced the driver the environment named")
	}
	t.Setenv("PLAYWRIGHT_CLI_PATH", "")
	Driver(t)
	if filepath.Base(os.Getenv("PLAYWRIGHT_CLI_PATH")) != "cli.js" {
		t.Fatalf("Driver left PLAYWRIGHT_CLI_PATH %q", os.Getenv("PLAYWRIGHT_CLI_PATH"))
	}
}
