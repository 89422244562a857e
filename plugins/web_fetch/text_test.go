package main

import (
	"strings"
	"testing"
)

func TestReadable(t *testing.T) {
	doc := `<!doctype html><html><head><title> The  Title </title><style>body{color:red}</style>
<script>var secret = "do not show";</script></head>
<body><nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<header>Site header</header>
<main><h1>Main heading</h1>
<p>First   paragraph with a <a href="/doc?x=1">relative link</a> inside.</p>
<h2>Second</h2><ul><li>one</li><li>two <b>bold</b></li></ul>
<script>alert(1)</script><noscript>enable js</noscript>
<p>Last <img src="x.png" alt="a cat"> paragraph.</p></main>
<footer>Copyright</footer></body></html>`
	title, text := Readable(doc, "https://example.test/dir/page")
	if title != "The Title" {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{"# Main heading", "First paragraph with a [relative link](https://example.test/doc?x=1) inside.", "## Second", "- one", "- two bold", "Last [image: a cat] paragraph."} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, bad := range []string{"secret", "alert", "color:red", "Home", "Site header", "Copyright", "enable js", "The Title"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q should be stripped:\n%s", bad, text)
		}
	}
}
