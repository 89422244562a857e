package capability

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Golden files: a JSON case (manifest, imports, personality, grants), a
// line of ten dashes, then the expected grants or the exact refusal.
func TestResolveGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/resolve/*.txt")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, want, ok := strings.Cut(string(raw), "\n----------\n")
			if !ok {
				t.Fatal("missing ---------- separator")
			}
			var c struct {
				Manifest    abi.Manifest `json:"manifest"`
				Imports     []string     `json:"imports"`
				Personality string       `json:"personality"`
				Grants      []string     `json:"grants"`
			}
			if err := json.Unmarshal([]byte(in), &c); err != nil {
				t.Fatal(err)
			}
			got := resolveText(c.Manifest, c.Imports, c.Personality, c.Grants)
			if *update {
				os.WriteFile(f, []byte(in+"\n----------\n"+got), 0o644)
				return
			}
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func resolveText(m abi.Manifest, imports []string, personality string, grants []string) string {
	g, err := Parse(grants)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	s, err := Resolve(m, imports, personality, g)
	if err != nil {
		return "refused: " + err.Error() + "\n"
	}
	return "granted: [" + strings.Join(s.Sorted(), " ") + "]\n"
}

func TestNilSetGrantsNothing(t *testing.T) {
	var s Set
	if s.Has(Events) || len(s.Covers([]string{"events"})) != 1 {
		t.Fatal("a nil set must grant nothing")
	}
}
