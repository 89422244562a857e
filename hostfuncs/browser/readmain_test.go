package browser

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// postParagraphs are the post of blogPage: every one must be read.
var postParagraphs = []string{
	"We moved the whole code base from spaces to tabs last spring, after a long argument, three polls and one very patient review.",
	"Tabs let each reader choose an indentation width, which matters for people with low vision, who often set a wide one, and for people on small screens, who set a narrow one.",
	"The change itself took an afternoon: a formatter run, a single commit, and a note in the contributing guide, so that blame still finds the real authors of each line.",
	"What took longer was the tooling around it, because linters, editors and the review tool each had their own idea of what a tab is worth, and each needed a setting.",
	"A year on, nobody asks to go back, and the arguments have moved on to line length, which is a story for another post.",
}

// blogBoilerplate is what blogPage shows besides its post: none of it is
// the post.
var blogBoilerplate = []string{
	"The Example Blog", "Home", "About", "Posted on", "Share this", "Twitter", "Facebook",
	"Get our newsletter", "One email a week", "Related", "Spaces or tabs, again", "A history of the tab key",
	"thought on", "Great post", "I disagree", "awaiting moderation", "Leave a Reply", "will not be published",
	"Required fields", "Proudly powered",
}

// blogPage is laid out as a WordPress theme lays out a post: the post
// in a div of its own under a site header, its share, newsletter and
// related boxes after it, then the comments, each an <article>, one of
// them longer than any other article of the page, an unapproved comment
// with its moderation note, and the reply form.
func blogPage() string {
	var post strings.Builder
	for _, p := range postParagraphs {
		post.WriteString("<p>" + p + "</p>\n")
	}
	long := strings.Repeat("Great post, and I agree with most of it, but I still think spaces are simpler for everyone, because they look the same everywhere. ", 8)
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Why we moved to tabs – The Example Blog</title></head>
<body class="post-template-default single single-post">
<div id="page" class="site">
<header id="masthead" class="site-header"><p class="site-title"><a href="/">The Example Blog</a></p>
<nav class="main-navigation"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li></ul></nav></header>
<div id="content" class="site-content"><div id="primary" class="content-area">
<div id="post-12" class="post-12 post type-post status-publish hentry">
<header class="entry-header"><h1 class="entry-title">Why we moved to tabs</h1>
<div class="entry-meta">Posted on <a href="/2026/03/03/">March 3, 2026</a> by <a href="/author/ana/">Ana</a></div></header>
<div class="entry-content">
` + post.String() + `
<div class="sharedaddy sd-sharing-enabled"><div class="robots-nocontent sd-block sd-social"><h3 class="sd-title">Share this:</h3>
<ul><li><a href="#" class="share-twitter">Twitter</a></li><li><a href="#" class="share-facebook">Facebook</a></li></ul></div></div>
<div class="newsletter-box"><h3>Get our newsletter</h3><p>One email a week, with what we wrote and what we read, and nothing else at all.</p>
<form><input type="email" placeholder="Email"><button>Subscribe</button></form></div>
<div id="jp-relatedposts" class="jp-relatedposts"><h3 class="jp-relatedposts-headline">Related</h3>
<ul><li><a href="/spaces-or-tabs/">Spaces or tabs, again</a></li><li><a href="/tab-key/">A history of the tab key</a></li></ul></div>
</div></div>
<div id="comments" class="comments-area"><h2 class="comments-title">2 thoughts on “Why we moved to tabs”</h2>
<ol class="comment-list">
<li id="comment-2" class="comment"><article id="div-comment-2" class="comment-body"><footer class="comment-meta">Bo says:</footer>
<div class="comment-content"><p>` + long + `</p></div></article></li>
<li id="comment-3" class="comment"><article id="div-comment-3" class="comment-body"><footer class="comment-meta">Cy says:</footer>
<p class="comment-awaiting-moderation">Your comment is awaiting moderation.</p>
<div class="comment-content"><p>I disagree entirely.</p></div></article></li>
</ol>
<div id="respond" class="comment-respond"><h3 id="reply-title" class="comment-reply-title">Leave a Reply</h3>
<form id="commentform"><p class="comment-notes">Your email address will not be published. Required fields are marked *</p>
<textarea name="comment"></textarea><input type="submit" value="Post Comment"></form></div></div>
</div></div>
<footer id="colophon" class="site-footer"><a href="/">Proudly powered by WordPress</a></footer>
</div></body></html>`
}

// TestReadFindsThePostNotTheLargestArticle: on a blog laid out as
// WordPress lays it out, browser_read returns the post, every paragraph
// of it, under its title, and none of the page's chrome: not the largest
// <article> (a comment), not the share, newsletter and related boxes,
// not the comments, their moderation note or the reply form.
func TestReadFindsThePostNotTheLargestArticle(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: servePage(t, blogPage()), NoSnapshot: true})
	r := must[abi.BrowserReadResponse](t, svc, c, abi.HostBrowserRead, abi.BrowserReadRequest{})
	for _, p := range postParagraphs {
		if !strings.Contains(r.Text, p) {
			t.Errorf("the post's paragraph %.40q... was not read", p)
		}
	}
	if !strings.HasPrefix(r.Text, "Why we moved to tabs\n") {
		t.Errorf("the text does not start with the post's title")
	}
	for _, b := range blogBoilerplate {
		if strings.Contains(r.Text, b) {
			t.Errorf("the text holds %q, which is not the post", b)
		}
	}
	if t.Failed() {
		t.Logf("read from %s:\n%s", r.Root, r.Text)
	}
}

// TestReadWaitsForHiddenPages: a page that holds its text but shows none
// of it until a script shows it (an anti-flicker snippet: the whole page
// at opacity 0 for 2 s; a body hidden until its data loads) is read once
// it shows, within the action timeout, not as "no readable text".
func TestReadWaitsForHiddenPages(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	const story = "The offer of the week is a second pair of boots for half price, in every shop and online."
	pages := map[string]string{
		"anti-flicker": `<!doctype html><html class="async-hide"><head><title>Boots</title>
<style>.async-hide { opacity: 0 !important }</style>
<script>setTimeout(() => document.documentElement.classList.remove("async-hide"), 2000)</script></head>
<body><main><h1>Boots</h1><p>` + story + `</p></main></body></html>`,
		"hidden until loaded": `<!doctype html><html><head><title>Boots</title>
<style>body.loading { visibility: hidden } body.loading::before { content: "" }</style></head>
<body class="loading"><main><h1>Boots</h1><p>` + story + `</p></main>
<script>addEventListener("load", () => setTimeout(() => document.body.classList.remove("loading"), 700))</script></body></html>`,
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			c := caller(t.Name())
			must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: servePage(t, page), NoSnapshot: true})
			t0 := time.Now()
			r := must[abi.BrowserReadResponse](t, svc, c, abi.HostBrowserRead, abi.BrowserReadRequest{})
			if !strings.Contains(r.Text, story) {
				t.Fatalf("read %q after %s, want the story", r.Text, time.Since(t0))
			}
		})
	}
}

// TestReadKeepsTheTitle: when the page's heading is its title, the text
// starts with it, wherever the page put it (here in the site's header,
// outside the article), though Readability takes it out of the content.
func TestReadKeepsTheTitle(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	var body strings.Builder
	for _, p := range postParagraphs {
		body.WriteString("<p>" + p + "</p>")
	}
	page := `<!doctype html><title>A year of tabs | Example News</title>
<header class="page-header"><h1>A year of tabs</h1></header>
<div class="layout"><nav><a href="/">Home</a></nav><article class="story">` + body.String() + `</article></div>`
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: servePage(t, page), NoSnapshot: true})
	r := must[abi.BrowserReadResponse](t, svc, c, abi.HostBrowserRead, abi.BrowserReadRequest{})
	want := "A year of tabs\n" + strings.Join(postParagraphs, "\n")
	if r.Text != want {
		t.Fatalf("read from %s:\n%s\nwant:\n%s", r.Root, r.Text, want)
	}
}

// servePage serves one page on loopback for the test and returns its URL.
func servePage(t *testing.T, page string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	t.Cleanup(s.Close)
	return s.URL + "/"
}

// htmlPages returns a function that serves body, after a doctype, as an
// HTML page at path on mux.
func htmlPages(mux *http.ServeMux) func(path, body string) {
	return func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>"+body)
		})
	}
}
