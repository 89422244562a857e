package snapactive

import "testing"

const was = `- main [ref=e1]:
  - textbox "Name" [active] [ref=e2]: ada
  - checkbox "Keep" [checked] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello`

// wasOut stands for a compactor's answer for was: lines dropped and
// attributes added after the ones kept, as snapcompact does.
const wasOut = `- textbox "Name" [active] [ref=e2]: ada
- checkbox "Keep" [checked] [ref=e3]
- link "Help" [ref=e4] [url=/help]
Hello`

func TestPatchMovesTheMark(t *testing.T) {
	for _, c := range []struct{ name, now, want string }{
		{"to a checkbox", `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - checkbox "Keep" [checked] [active] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello`, `- textbox "Name" [ref=e2]: ada
- checkbox "Keep" [checked] [active] [ref=e3]
- link "Help" [ref=e4] [url=/help]
Hello`},
		{"to a link", `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - checkbox "Keep" [checked] [ref=e3]
  - link "Help" [active] [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello`, `- textbox "Name" [ref=e2]: ada
- checkbox "Keep" [checked] [ref=e3]
- link "Help" [active] [ref=e4] [url=/help]
Hello`},
		{"off every element", `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - checkbox "Keep" [checked] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello`, `- textbox "Name" [ref=e2]: ada
- checkbox "Keep" [checked] [ref=e3]
- link "Help" [ref=e4] [url=/help]
Hello`},
	} {
		got, ok := Patch(was, wasOut, c.now)
		if !ok || got != c.want {
			t.Errorf("%s: ok %v, got:\n%s\nwant:\n%s", c.name, ok, got, c.want)
		}
	}
}

// Whatever else differs, or whatever the texts cannot show, is compacted
// again: a page that changed besides its focus is never answered from the
// answer held for it before.
func TestPatchFailsClosed(t *testing.T) {
	moved := `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - checkbox "Keep" [checked] [active] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello`
	for _, c := range []struct{ name, was, wasOut, now string }{
		{"the page changed too", was, wasOut, moved + " again"},
		{"a value changed too", was, wasOut, `- main [ref=e1]:
  - textbox "Name" [ref=e2]: adb
  - checkbox "Keep" [checked] [active] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello`},
		{"the answer shows no mark", was, `- textbox "Name" [ref=e2]: ada
- checkbox "Keep" [checked] [ref=e3]`, moved},
		{"the mark in a line's text", was, wasOut + "\n- text: [active]", moved},
		{"the new focus has no line", was, `- textbox "Name" [active] [ref=e2]: ada`, moved},
		{"the new focus's ref in a text", was, `- textbox "Name" [active] [ref=e2]: ada
- generic: checkbox [ref=e3]`, moved},
		{"the new focus without a ref", was + "\n  - paragraph: Hi", wasOut, `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - checkbox "Keep" [checked] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello
  - paragraph [active]: Hi`},
		{"two marks", was, wasOut, moved + "\n- button \"X\" [active] [ref=e9]"},
	} {
		if got, ok := Patch(c.was, c.wasOut, c.now); ok {
			t.Errorf("%s: patched:\n%s", c.name, got)
		}
	}
}

func TestStrip(t *testing.T) {
	s, ok := Strip(was)
	if !ok || s != `- main [ref=e1]:
  - textbox "Name" [ref=e2]: ada
  - checkbox "Keep" [checked] [ref=e3]
  - link "Help" [ref=e4] [cursor=pointer]:
    - /url: /help
  - text: Hello` {
		t.Fatalf("ok %v:\n%s", ok, s)
	}
	if _, ok := Strip(was + "\n- text: \"[active]\""); ok {
		t.Fatal("a mark in a text was taken for the focus")
	}
}
