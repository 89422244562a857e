package main

import (
	"reflect"
	"testing"
)

func TestExtract(t *testing.T) {
	src := `<p>x</p><A HREF="/a?x=1&amp;y=2">Hello <b>world</b></a>
<abbr title="no">n</abbr><a class=x href=rel.html>rel</a><a name="anchor">no href</a>
<a href='https://e.example/q'><!-- c -->Q&amp;A</a><area href="/nope">`
	got := Extract(src, "https://base.example/dir/")
	want := []Link{
		{Href: "https://base.example/a?x=1&y=2", Text: "Hello world"},
		{Href: "https://base.example/dir/rel.html", Text: "rel"},
		{Href: "https://e.example/q", Text: "Q&A"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}
