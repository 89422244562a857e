package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPages(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.html", "notes.txt", "a.html", "c.html.gz"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Pages(dir)
	if err != nil || !slices.Equal(got, []string{"a.html", "b.html"}) {
		t.Fatalf("Pages = %q, %v; want [a.html b.html]", got, err)
	}
	if _, err := Pages(filepath.Join(dir, "absent")); !os.IsNotExist(err) {
		t.Fatalf("an absent folder: %v, want its not-exist error", err)
	}
}

func TestDir(t *testing.T) {
	t.Setenv(Env, "")
	if d := Dir(); !filepath.IsAbs(d) || filepath.Base(d) != "corpus" || filepath.Base(filepath.Dir(d)) != "shared" {
		t.Fatalf("Dir() = %s", d)
	}
	t.Setenv(Env, "/elsewhere/corpus")
	if d, _ := Sub("walls"); d != "/elsewhere/corpus/walls" {
		t.Fatalf("override: %s", d)
	}
}
