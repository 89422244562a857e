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
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./frontend/...")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./frontend/...: %v\n%s", err, out)
	}
	var seen []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(f[0], mod+"/")
		seen = append(seen, pkg)
		for _, imp := range f[1:] {
			rel, ok := strings.CutPrefix(imp, mod+"/")
			if !ok || rel == "abi" || strings.HasPrefix(rel, "frontend/") || frontendImports[rel] != "" {
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
