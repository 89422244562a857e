package corpus

import (
	"path/filepath"
	"testing"
)

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
