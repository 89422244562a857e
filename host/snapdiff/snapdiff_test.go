package snapdiff

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/corpus"
)

// withRefs gives every line of a snapshot a ref, as the browser does for
// its elements, so changes keep refs as on a live page.
func withRefs(snap string) string {
	lines := strings.Split(snap, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		name, rest, _ := strings.Cut(l, ":")
		lines[i] = fmt.Sprintf("%s [ref=e%d]:%s", name, i+1, rest)
	}
	return strings.Join(lines, "\n")
}

// edits are scripted page changes: lines added, removed, changed (same
// ref, new text), reordered.
var edits = map[string]func(r *rand.Rand, a []string) []string{
	"add": func(r *rand.Rand, a []string) []string {
		i := r.Intn(len(a) + 1)
		ind := "  "
		if i > 0 {
			ind = a[i-1][:indent(a[i-1])] + "  "
		}
		return append(a[:i:i], append([]string{fmt.Sprintf("%s- status [ref=n%d]: added %d", ind, i, r.Int())}, a[i:]...)...)
	},
	"remove": func(r *rand.Rand, a []string) []string {
		i := r.Intn(len(a))
		return append(a[:i:i], a[i+1:]...)
	},
	"change": func(r *rand.Rand, a []string) []string {
		i := r.Intn(len(a))
		b := append([]string(nil), a...)
		b[i] += fmt.Sprintf(" changed %d", r.Int())
		return b
	},
	"reorder": func(r *rand.Rand, a []string) []string {
		b := append([]string(nil), a...)
		i, j := r.Intn(len(b)), r.Intn(len(b))
		b[i], b[j] = b[j], b[i]
		return b
	},
}

func TestSnapshotDiffAppliesOnCorpus(t *testing.T) {
	dir := corpus.Need(t, filepath.Join("a11y", "playwright-aria-snapshot"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.aria.yml"))
	if len(files) == 0 {
		t.Fatalf("no *.aria.yml snapshots in %s", dir)
	}
	r := rand.New(rand.NewSource(13))
	counts := map[byte]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prev := withRefs(strings.TrimRight(string(raw), "\n"))
		for round := 0; round < 20; round++ {
			a := strings.Split(prev, "\n")
			var names []string
			for n := 0; n < 1+r.Intn(4); n++ {
				name := []string{"add", "remove", "change", "reorder"}[r.Intn(4)]
				if len(a) > 1 || name == "add" {
					a = edits[name](r, a)
					names = append(names, name)
				}
			}
			next := strings.Join(a, "\n")
			d := Diff(prev, next)
			got, err := Apply(prev, d)
			if err != nil || got != next {
				t.Fatalf("%s round %d (%v): applying the diff failed (%v)\nprev:\n%s\ndiff:\n%s\ngot:\n%s\nwant:\n%s", filepath.Base(f), round, names, err, prev, d, got, next)
			}
			for _, l := range strings.Split(d, "\n")[1:] {
				counts[l[0]]++
			}
			prev = next
		}
	}
	for _, tag := range []byte{'+', '-', '~', ' '} {
		if counts[tag] == 0 {
			t.Errorf("no %q line in any diff: the scripted changes do not exercise it", tag)
		}
	}
}

func TestSnapshotDiffFormat(t *testing.T) {
	prev := `- list "Items" [ref=e1]:
  - listitem [ref=e2]: Apple
  - listitem [ref=e3]: Pear
  - listitem [ref=e4]: Plum
- button "Add" [ref=e5]
- status [ref=e6]: 3 items`
	next := `- list "Items" [ref=e1]:
  - listitem [ref=e2]: Apple
  - listitem [ref=e3]: Pear
  - listitem [ref=e4]: Plum
  - listitem [ref=e7]: Fig
- button "Add" [ref=e5]
- status [ref=e6]: 4 items`
	want := `Page snapshot (changes since your last snapshot: 1 added, 0 removed, 1 changed):
  - list "Items" [ref=e1]:
  …
    - listitem [ref=e4]: Plum
+   - listitem [ref=e7]: Fig
  - button "Add" [ref=e5]
~ - status [ref=e6]: 4 items`
	if got := Diff(prev, next); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff(prev, prev); got != Unchanged {
		t.Fatalf("an unchanged page gave %q", got)
	}
}
