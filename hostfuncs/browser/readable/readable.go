// Package readable finds the main content of a page's visible DOM, as
// Mozilla's Readability does: the browser gives it the HTML of what a
// person sees (the page's walk, judged there) and reads back the text.
// It knows nothing of the browser or its sessions.
package readable

import (
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
)

// Page is what the browser's visible-DOM walk gives: the page's title,
// its visible DOM as HTML (only the text a person sees, block edges marked
// by line breaks), and whether the page holds text it does not show yet.
type Page struct {
	Title  string `json:"title"`
	HTML   string `json:"html"`
	Hidden bool   `json:"hidden"`
	// Candidates: elements the walk met that may host a closed shadow
	// root it could not enter (the browser asks DevTools about them).
	Candidates int `json:"candidates"`
}

// Main finds the main content of a page's visible DOM as Mozilla's
// Readability does (go-readability, a port of Readability.js 0.6): it
// scores paragraphs by their text and commas, passes the scores up to
// their containers, weighs classes and ids (article, content, post up;
// comment, sidebar, share, related down), discounts link-heavy blocks,
// takes the best container with the siblings that score near it, and
// cleans out what is left of boilerplate (share and social boxes, forms,
// link lists, footers). Not the largest <article>: on a blog, that is
// often a comment.
//
// It returns the text, a block per line, and root: the tag of the
// smallest element of the page that holds every line read ("body" when
// it is the page). The page's title stays: Readability takes the title
// out of the content (it shows it apart), so when a heading the page
// shows is its title and the text lost it, the heading is the first line.
func Main(page Page, pageURL string) (root, text string) {
	doc, err := html.Parse(strings.NewReader("<!doctype html><html><head><title>" + html.EscapeString(page.Title) +
		"</title></head><body>" + page.HTML + "</body></html>"))
	if err != nil {
		return "body", ""
	}
	// Readability works on copies of the document: each element carries
	// its index, for root to name the page's own element.
	parent := map[*html.Node]*html.Node{}
	var elements []*html.Node
	var headings []string
	var index func(n *html.Node)
	index = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			parent[c] = n
			if c.Type == html.ElementNode {
				c.Attr = append(c.Attr, html.Attribute{Key: indexAttr, Val: strconv.Itoa(len(elements))})
				elements = append(elements, c)
				if c.Data == "h1" || c.Data == "h2" {
					headings = append(headings, oneLine(blockText(c)))
				}
			}
			index(c)
		}
	}
	index(doc)
	body := findTag(doc, "body")
	u, err := url.Parse(pageURL)
	if err != nil {
		u = &url.URL{}
	}
	p := readability.NewParser()
	p.DisableJSONLD = true
	p.KeepClasses = true // dropBoilerplate reads them
	p.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	art, err := p.ParseAndMutate(doc, u)
	if err != nil || art.Node == nil || strings.TrimSpace(blockText(art.Node)) == "" {
		// Nothing Readability would call content: the page's whole
		// visible text, read again from the untouched HTML.
		return "body", mainTextWhole(page)
	}
	text = blockText(art.Node)
	dropBoilerplate(art.Node)
	// A page whose content is all boilerplate by name keeps it: the
	// names guessed wrong.
	if t := blockText(art.Node); t != "" {
		text = t
	}
	root = "body"
	if top := commonAncestor(art.Node, parent, elements); top != nil && top != body {
		root = top.Data
	}
	if h := titleHeading(art.Title(), headings); h != "" && !strings.Contains(oneLine(text), h) {
		text = h + "\n" + text
	}
	return root, text
}

// mainTextWhole is the whole visible text of the page, a block per line.
func mainTextWhole(page Page) string {
	doc, err := html.Parse(strings.NewReader("<body>" + page.HTML + "</body>"))
	if err != nil {
		return ""
	}
	if b := findTag(doc, "body"); b != nil {
		return blockText(b)
	}
	return ""
}

// boilerClass matches the class or id of a box that is not the article's
// own text, whatever it holds: share and follow buttons, newsletter and
// subscription boxes, related and recommended links, comments and their
// forms, promotions, ads, cookie notices, author boxes. Readability
// weighs such names down and drops share boxes; the rest can still score
// their way into the content when they sit inside the post's container.
var boilerClass = regexp.MustCompile(`(?i)(^|[-_\s])(share|sharing|sharedaddy|social|newsletter|subscribe|subscription|signup|sign-up|related|relatedposts|recommended|recommendations|more-stories|read-next|comments?|respond|reply|promo|sponsored|advert|advertisement|ads?|cookie|consent|outbrain|taboola|author-bio|author-box)([-_\s]|$)`)

// commentBox matches a class or id token of a comment thread, as blog
// engines name them: dropped whatever its length, since a thread can be
// longer than a short post (Readability then falls back to a pass that
// keeps such boxes).
var commentBox = regexp.MustCompile(`(?i)^(comments?|comment-?list|comments-area|comment-respond|respond|disqus_thread|comment-body|comment-content|(div-)?comment-\d+)$`)

// boilerText matches a block whose whole text is a stock line of a page's
// chrome (comment moderation, share and follow calls, newsletter calls).
var boilerText = regexp.MustCompile(`(?i)^(your comment is awaiting moderation|your email address will not be published|required fields are marked|leave a (reply|comment)|share (this|on)|follow us on|sign up for|subscribe to|get our newsletter|related (posts|articles|stories)|you (may|might) also like|advertisement)\b`)

// boilerMax is the most text a box dropped for its name may hold: a long
// box named so is more likely the content than its chrome (Readability's
// share-box rule uses the same bound).
const boilerMax = 500

// dropBoilerplate removes from the content comment threads (commentBox),
// the boxes boilerClass names that hold less than boilerMax characters,
// and the blocks boilerText matches.
func dropBoilerplate(content *html.Node) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && boilerplate(c) {
				n.RemoveChild(c)
			} else {
				walk(c)
			}
			c = next
		}
	}
	walk(content)
}

func boilerplate(n *html.Node) bool {
	var name string
	for _, a := range n.Attr {
		if a.Key == "class" || a.Key == "id" {
			name += " " + a.Val
			for _, tok := range strings.Fields(a.Val) {
				if commentBox.MatchString(tok) {
					return true
				}
			}
		}
	}
	named := boilerClass.MatchString(name)
	if !named && !blocks[n.Data] {
		return false
	}
	text := oneLine(blockText(n))
	if named && len(text) < boilerMax {
		return true
	}
	return blocks[n.Data] && len(text) < 200 && boilerText.MatchString(text)
}

// blocks are the tags that start and end a line, besides the line breaks
// the page's own layout put in (Readability makes paragraphs of runs of
// <br> and of divs that hold only inline content).
var blocks = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "dd": true, "details": true, "div": true,
	"dl": true, "dt": true, "figcaption": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true, "li": true, "main": true, "ol": true,
	"p": true, "pre": true, "section": true, "summary": true, "table": true, "tr": true, "ul": true,
}

// blockText is n's text, a block per line, white space collapsed.
func blockText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch {
			case n.Data == "br":
				b.WriteByte('\n')
				return
			case n.Data == "td" || n.Data == "th":
				b.WriteByte(' ')
			case blocks[n.Data]:
				b.WriteByte('\n')
				defer b.WriteByte('\n')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// indexAttr holds an element's index in the page's visible DOM.
const indexAttr = "data-ww-index"

// commonAncestor is the deepest element of the page as it was parsed
// (elements by index, parent: each node's parent there) that holds every
// text of content: each text counts as held by the nearest element above
// it that came from the page (Readability makes some elements of its own).
func commonAncestor(content *html.Node, parent map[*html.Node]*html.Node, elements []*html.Node) *html.Node {
	var top []*html.Node // root first
	var walk func(n, from *html.Node)
	walk = func(n, from *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if i, err := strconv.Atoi(a.Val); a.Key == indexAttr && err == nil && i >= 0 && i < len(elements) {
					from = elements[i]
				}
			}
		}
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			var chain []*html.Node
			for a := from; a != nil; a = parent[a] {
				chain = append(chain, a)
			}
			slices.Reverse(chain)
			if top == nil {
				top = chain
				return
			}
			i := 0
			for i < len(top) && i < len(chain) && top[i] == chain[i] {
				i++
			}
			top = top[:i]
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, from)
		}
	}
	walk(content, nil)
	if len(top) == 0 {
		return nil
	}
	return top[len(top)-1]
}

// titleHeading is the first of the page's h1 and h2 headings that is its
// title (Readability's measure: at least 75% of the heading's words are
// the title's), or "".
func titleHeading(title string, headings []string) string {
	if strings.TrimSpace(title) == "" {
		return ""
	}
	for _, h := range headings {
		if h != "" && similarity(title, h) >= 0.75 {
			return h
		}
	}
	return ""
}

var nonWord = regexp.MustCompile(`\W+`)

// similarity is Readability's textSimilarity: the share of b's text, by
// length, made of words a also has.
func similarity(a, b string) float64 {
	words := func(s string) []string {
		var out []string
		for _, w := range nonWord.Split(strings.ToLower(s), -1) {
			if w != "" {
				out = append(out, w)
			}
		}
		return out
	}
	ta, tb := words(a), words(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	inA := map[string]bool{}
	for _, w := range ta {
		inA[w] = true
	}
	var uniq []string
	for _, w := range tb {
		if !inA[w] {
			uniq = append(uniq, w)
		}
	}
	return 1 - float64(len(strings.Join(uniq, " ")))/float64(len(strings.Join(tb, " ")))
}

// oneLine collapses white space to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// findTag is the first element named tag under n, depth first.
func findTag(n *html.Node, tag string) *html.Node {
	if n.Type == html.ElementNode && n.Data == tag {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findTag(c, tag); f != nil {
			return f
		}
	}
	return nil
}
