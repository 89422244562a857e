// Package benchflag registers the command-line flags the benchmark
// programs share, on the default flag set, with one meaning and one
// default each: the corpus pages they serve, the wasmwright binary and
// plugins they run, an older build measured beside it, and Playwright
// MCP's npm prefix. scripts/bench.sh passes -corpus to every program.
package benchflag

import (
	"flag"
	"os"
	"path/filepath"

	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// built is the path of name in this checkout's build folder.
func built(name string) string { return filepath.Join(wasmbuild.Root(), "build", name) }

// Pages registers -corpus and -pages; the function it returns (called
// after flag.Parse) is the folder of saved .html pages: the corpus's
// pages/ when -corpus is given, else -pages (by default the shared
// corpus's pages/).
func Pages() func() string {
	corpus := flag.String("corpus", "", "corpus folder (its pages/ subfolder is used; overrides -pages)")
	pages := flag.String("pages", filepath.Join(corpusdir.Dir(), "pages"), "folder of saved .html pages")
	return func() string {
		if *corpus != "" {
			return filepath.Join(*corpus, "pages")
		}
		return *pages
	}
}

// Unused registers -corpus for a program that reads no corpus (it is
// passed to every program).
func Unused() { flag.String("corpus", "", "unused (scripts/bench.sh passes it to every program)") }

// Wasmwright registers -wasmwright, the wasmwright binary to run
// (build/wasmwright by default).
func Wasmwright() *string {
	return flag.String("wasmwright", built("wasmwright"), "the built wasmwright binary (make build)")
}

// PluginsDir is the plugins folder a benchmark's host runs by default:
// $WASMWRIGHT_PLUGINS_DIR, else build/plugins.
func PluginsDir() string {
	if d := os.Getenv("WASMWRIGHT_PLUGINS_DIR"); d != "" {
		return d
	}
	return built("plugins")
}

// Plugins registers -plugins, the plugins folder of -wasmwright
// (PluginsDir by default).
func Plugins() *string {
	return flag.String("plugins", PluginsDir(), "the built plugins of -wasmwright (make plugins)")
}

// Peer registers -peer, the npm prefix holding the peers (make peer).
func Peer() *string {
	return flag.String("peer", built("peer"), "npm prefix holding @playwright/mcp@0.0.83 and chrome-devtools-mcp@1.11.0 (make peer)")
}

// PeerCLI is Playwright MCP's cli.js in the npm prefix dir.
func PeerCLI(dir string) string {
	return filepath.Join(dir, "node_modules", "@playwright", "mcp", "cli.js")
}

// Before is an older wasmwright build measured beside this one (Bin ""
// when none is).
type Before struct{ Bin, Plugins *string }

// BeforeFlags registers -NAME, the older build's binary, and
// -before-plugins, its plugins folder.
func BeforeFlags(name string) Before {
	return Before{
		Bin:     flag.String(name, "", "a wasmwright binary built from an older commit, measured beside this one (scripts/bench.sh builds it)"),
		Plugins: flag.String("before-plugins", "", "the plugins folder built with -"+name),
	}
}
