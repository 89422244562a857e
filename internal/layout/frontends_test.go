package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// frontendImports are what a front-end (the MCP server, the console) may
// import of the module besides abi and frontend/...: the kernel's API
// (host), and, with a reason, a package of host/ that is no service.
var frontendImports = map[string]string{
	"host":                "the kernel's API: the types a front-end exchanges with the services and the interfaces it asks them through (host/frontends.go)",
	"host/console/config": "the console's own [console] table",
}

// TestFrontendsUseTheKernelOnly fails when a front-end imports a service
// package (hostfuncs/..., sandbox, capability, a service of host/)
// directly: it asks the kernel, whose interfaces the services satisfy;
// the composition root in cmd/ wires them. Only non-test builds count.
func TestFrontendsUseTheKernelOnly(t *testing.T) {
	var seen []string
	for pkg, imports := range moduleImports(t, "./frontend/...") {
		seen = append(seen, pkg)
		for _, rel := range imports {
			if rel == "abi" || strings.HasPrefix(rel, "frontend/") || frontendImports[rel] != "" {
				continue
			}
			t.Errorf("%s imports %s: a front-end reaches the services through the kernel's API (package host), never directly", pkg, rel)
		}
	}
	for _, want := range []string{"frontend/mcp", "frontend/console"} {
		if !slices.Contains(seen, want) {
			t.Errorf("%s is not under frontend/: the fence no longer sees it", want)
		}
	}
}

// cliImports are what the CLI (cmd/wasmwright) may import of the module
// besides abi, host and frontend/..., each with its reason. The CLI is
// the composition root of `serve` and a front-end for the other
// commands: the stores they edit (the vault, the grants) are reached
// through the kernel's API (host/admin.go), never a hostfuncs/ package.
// What is listed works on plugin files with no kernel running. The list
// only shrinks: an entry no longer imported fails until it is taken off.
var cliImports = map[string]string{
	"capability":         "plugins conformance resolves a plugin's needs against every grant, with no personality",
	"sandbox":            "plugins conformance and precompile run and compile a plugin with no host; swap reads the manifest cache",
	"host/pluginset":     "plugins conformance runs the self-test; plugins swap lays out the plugin folder a running host watches",
	"internal/abischema": "plugins conformance checks a manifest against the ABI's schema",
	"distribute":         "plugins push and pull move plugins through an OCI registry",
	"host/signature":     "plugins keygen, sign, verify and pull make and check signatures of plugin files",
	"host/metrics":       "serve, the composition root, mounts the metrics handler and feeds it the kernel's events",
}

// TestCLIUsesTheKernelOnly fails when the CLI imports a package of the
// module that cliImports does not list (a service, hostfuncs/...), or
// lists one it no longer imports. Only non-test builds count.
func TestCLIUsesTheKernelOnly(t *testing.T) {
	imports := moduleImports(t, "./cmd/wasmwright")["cmd/wasmwright"]
	if imports == nil {
		t.Fatal("go list saw no cmd/wasmwright: the fence no longer sees the CLI")
	}
	for _, rel := range imports {
		if rel == "abi" || rel == "host" || strings.HasPrefix(rel, "frontend/") || cliImports[rel] != "" {
			continue
		}
		t.Errorf("cmd/wasmwright imports %s: the CLI reaches the services through the kernel's API (package host; its stores in host/admin.go), never directly", rel)
	}
	for rel := range cliImports {
		if !slices.Contains(imports, rel) {
			t.Errorf("cmd/wasmwright no longer imports %s: take it off cliImports", rel)
		}
	}
}

// moduleImports lists, for each package the pattern matches, the
// packages of this module it imports (non-test builds), relative to the
// module's path.
func moduleImports(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", pattern)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pattern, err, out)
	}
	all := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(f[0], mod+"/")
		all[pkg] = []string{}
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, mod+"/"); ok {
				all[pkg] = append(all[pkg], rel)
			}
		}
	}
	return all
}
