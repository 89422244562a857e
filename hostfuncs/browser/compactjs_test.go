package browser

import (
	"strings"
	"testing"
)

// TestCompactJS: comment lines and indentation go, code (and a comment
// after code, and "//" inside a string) stays; a script with a template
// literal is left whole.
func TestCompactJS(t *testing.T) {
	src := "(() => {\n\t// a comment\n\t\tconst u = \"http://x\"; // kept\n\n  \t// another\n\treturn u;\n})()"
	want := "(() => {\nconst u = \"http://x\"; // kept\nreturn u;\n})()"
	if got := compactJS(src); got != want {
		t.Errorf("compactJS:\n%q\nwant\n%q", got, want)
	}
	tmpl := "const s = `a\n// not a comment\n`;\n// a comment\n"
	if got := compactJS(tmpl); got != tmpl {
		t.Errorf("a template literal's lines were touched: %q", got)
	}
	cont := "const s = \"a\\\n    b\";\n"
	if got := compactJS(cont); got != cont {
		t.Errorf("a string continued on the next line was touched: %q", got)
	}
	// The engines the host registers shrink, and keep every line of code.
	for name, js := range map[string]string{"changes": changesJS, "visibility": visibilityEngineJS, "read": "(probe, closed) => {\n" + visibilityJS + closedJS + readWalkJS} {
		c := compactJS(js)
		if len(c) > len(js)*3/4 {
			t.Errorf("%s: %d -> %d bytes: comments and indentation left", name, len(js), len(c))
		}
		code := 0
		for line := range strings.Lines(js) {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "//") {
				code++
			}
		}
		if n := strings.Count(c, "\n") + 1; n != code {
			t.Errorf("%s: %d lines of code, %d after compacting", name, code, n)
		}
	}
}
