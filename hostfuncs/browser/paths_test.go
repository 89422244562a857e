package browser

import "testing"

// Files the host names itself (a screenshot or PDF without a name) never
// share a name: calls of a personality's sessions in one millisecond each
// get their own file, so no answer names another call's picture.
func TestWorkspaceFileDefaultNamesDiffer(t *testing.T) {
	p := &pages{env: &env{cfg: Config{WorkspaceDir: t.TempDir()}}}
	seen := map[string]bool{}
	for range 50 {
		f, err := p.workspaceFile("p", "", "screenshot", ".png")
		if err != nil {
			t.Fatal(err)
		}
		if seen[f] {
			t.Fatalf("two calls got the same file %s", f)
		}
		seen[f] = true
	}
}
