package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every plugin build command the docs and the scaffold give an author
// (GOOS=wasip1 ... go build) has -trimpath, so the same source builds the
// same bytes, and the same pin, in any folder; and -buildmode=c-shared,
// without which the host refuses the module.
func TestDocsBuildPluginsWithTrimpath(t *testing.T) {
	n := 0
	eachLine(func(rel string, d fs.DirEntry) bool {
		return rel == "build" || strings.HasPrefix(d.Name(), ".") && rel != "."
	}, func(rel string) bool {
		return strings.HasSuffix(rel, ".md") || rel == "cmd/wasmwright/scaffold.go"
	}, func(rel string, i int, line string) {
		if !strings.Contains(line, "GOOS=wasip1") || !strings.Contains(line, "go build") {
			return
		}
		n++
		if !strings.Contains(line, "-trimpath") || !strings.Contains(line, "-buildmode=c-shared") {
			t.Errorf("%s:%d builds a plugin without -trimpath or -buildmode=c-shared: %s", rel, i+1, strings.TrimSpace(line))
		}
	})
	if n < 3 {
		t.Fatalf("only %d plugin build commands found", n)
	}
}

// eachLine walks the repository, passing over the folders skip says
// (rel is slashed, relative to the root), and calls line with each line
// of the files want keeps. It returns how many files it read.
func eachLine(skip func(rel string, d fs.DirEntry) bool, want func(rel string) bool, line func(rel string, i int, text string)) int {
	root := "../.."
	n := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skip(rel, d) {
				return filepath.SkipDir
			}
			return nil
		}
		if !want(rel) {
			return nil
		}
		n++
		b, _ := os.ReadFile(path)
		for i, l := range strings.Split(string(b), "\n") {
			line(rel, i, l)
		}
		return nil
	})
	return n
}

// The AssemblyScript kit's README points at the UTF-8 output rule, which
// abi/README.md states.
func TestASReadmePointsAtUTF8Rule(t *testing.T) {
	as, err := os.ReadFile("../../plugin-sdk/assemblyscript/README.md")
	if err != nil {
		t.Fatal(err)
	}
	abi, _ := os.ReadFile("../../abi/README.md")
	const rule = "Pitfall: `Host.outputString`"
	if !strings.Contains(string(abi), "**"+rule) {
		t.Fatalf("abi/README.md no longer has the section %q", rule)
	}
	for _, want := range []string{"UTF-8", "Host.output(Uint8Array.wrap(String.UTF8.encode(", rule} {
		if !strings.Contains(string(as), want) {
			t.Errorf("plugin-sdk/assemblyscript/README.md does not say %q", want)
		}
	}
}

// issueRef is a tracker reference ("issue 22", "Issue #41"): it tells a
// reader nothing the tracker does not hold, and goes stale.
var issueRef = regexp.MustCompile(`(?i)\bissue #?[0-9]+`)

// The product's docs and code say what a thing is, not which issue asked
// for it: no "issue N" in README.md, RATIONALE.md, BENCHMARKS.md, docs/ or a non-test Go
// file (the bench harness, which measures issues' goals by name, aside).
func TestNoIssueNumbersInDocsOrCode(t *testing.T) {
	n := eachLine(func(rel string, d fs.DirEntry) bool {
		return rel == "build" || rel == "internal/bench" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && rel != "."
	}, func(rel string) bool {
		doc := rel == "README.md" || rel == "RATIONALE.md" || rel == "BENCHMARKS.md" || strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md")
		return doc || strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	}, func(rel string, i int, line string) {
		if m := issueRef.FindString(line); m != "" {
			t.Errorf("%s:%d says %q: say what the thing is instead", rel, i+1, m)
		}
	})
	if n < 100 {
		t.Fatalf("only %d files read: the walk is broken", n)
	}
}

// mdLink is a markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchor is the id GitHub gives a heading: lower case, punctuation but
// hyphens and underscores dropped, spaces as hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every relative link in the README and docs/ leads to a file that exists,
// and to a heading of it when it names one: pages moved or renamed take
// their links with them.
func TestDocLinksResolve(t *testing.T) {
	root := "../.."
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "RATIONALE.md"), filepath.Join(root, "BENCHMARKS.md"))
	n := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				if _, serr := os.Stat(path); serr != nil {
					t.Errorf("%s links to %s, which does not exist", rel, target)
				}
				continue
			}
			if frag != "" && !hasAnchor(string(body), frag) {
				t.Errorf("%s links to %s: no heading there has the id %q", rel, target, frag)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d relative links found: the pattern is broken", n)
	}
}

// hasAnchor reports whether a heading of md, outside code blocks (where
// "# ..." is a comment), has the id frag.
func hasAnchor(md, frag string) bool {
	code := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && !code && strings.HasPrefix(line, "#") && anchor(h) == frag {
			return true
		}
	}
	return false
}
