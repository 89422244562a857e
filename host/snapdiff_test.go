package host

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/corpus"
)

// applyDiff applies a snapshotDiff to prev, the way an agent reads it:
// a hunk's context lines up to "  …" only say where it is; the lines after
// it are found reading on from the previous hunk, and the changes follow
// them. It fails on anything that does not fit prev.
func applyDiff(prev, diff string) (string, error) {
	if diff == snapshotUnchanged {
		return prev, nil
	}
	a := strings.Split(prev, "\n")
	lines := strings.Split(diff, "\n")
	if !regexp.MustCompile(`^Page snapshot \(changes since your last snapshot: \d+ added, \d+ removed, \d+ changed\):$`).MatchString(lines[0]) {
		return "", fmt.Errorf("bad header %q", lines[0])
	}
	var out []string
	cursor := 0
	var ctx []string
	inChanges := false
	for _, l := range lines[1:] {
		tag, text := l[:2], l[2:]
		if tag == "  " {
			if inChanges {
				ctx, inChanges = nil, false
			}
			if text == "…" {
				ctx = nil
				continue
			}
			ctx = append(ctx, text)
			continue
		}
		if !inChanges {
			at := firstAt(a, cursor, ctx)
			if at < 0 {
				return "", fmt.Errorf("context %q not found after line %d", ctx, cursor)
			}
			end := at + len(ctx)
			out = append(out, a[cursor:end]...)
			cursor, inChanges = end, true
		}
		switch tag {
		case "+ ":
			out = append(out, text)
		case "- ", "~ ":
			if cursor >= len(a) {
				return "", fmt.Errorf("%q past the end", l)
			}
			if tag == "- " && a[cursor] != text {
				return "", fmt.Errorf("removed %q but the line is %q", text, a[cursor])
			}
			if tag == "~ " {
				if r := refOfLine(text); r == "" || r != refOfLine(a[cursor]) {
					return "", fmt.Errorf("changed %q but the line is %q", text, a[cursor])
				}
				out = append(out, text)
			}
			cursor++
		default:
			return "", fmt.Errorf("bad line %q", l)
		}
	}
	return strings.Join(append(out, a[cursor:]...), "\n"), nil
}

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
	dir, ok := corpus.Sub(filepath.Join("a11y", "playwright-aria-snapshot"))
	if !ok {
		t.Skip(corpus.Absent(dir))
	}
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
			d := snapshotDiff(prev, next)
			got, err := applyDiff(prev, d)
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
	if got := snapshotDiff(prev, next); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := snapshotDiff(prev, prev); got != snapshotUnchanged {
		t.Fatalf("an unchanged page gave %q", got)
	}
}

func TestBaselinesBounded(t *testing.T) {
	b := baselines{max: 2}
	for _, s := range []string{"a", "b", "c"} {
		b.put(sessionKey{"p", s}, baseline{snapshot: "snap " + s})
	}
	if _, ok := b.get(sessionKey{"p", "a"}); ok {
		t.Fatal("the least recently used session was kept past max")
	}
	if s, ok := b.get(sessionKey{"p", "c"}); !ok || s.snapshot != "snap c" {
		t.Fatalf("the newest session's baseline is %q, %v", s, ok)
	}
	b.forget(sessionKey{"p", "c"})
	if _, ok := b.get(sessionKey{"p", "c"}); ok || len(b.order) != 1 {
		t.Fatalf("forget left the baseline (order %v)", b.order)
	}
	b.put(sessionKey{"p", "big"}, baseline{snapshot: strings.Repeat("x", maxBaseline+1)})
	if _, ok := b.get(sessionKey{"p", "big"}); ok {
		t.Fatal("a snapshot over maxBaseline was kept")
	}
}
