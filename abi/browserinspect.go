package abi

import "encoding/json"

// What the browser host functions let a plugin read of a page beyond its
// snapshot: console, network, images, styles, screenshots, text, PDF,
// script results and sources.

// BrowserConsoleRequest reads the session's console log (all tabs) and
// uncaught page errors. Level filters to that level and more severe
// (error, warning, info, debug). Since returns entries after that Seq.
type BrowserConsoleRequest struct {
	Level string `json:"level,omitempty" enum:"error|warning|info|debug"`
	Since int64  `json:"since,omitempty"`
	Limit int    `json:"limit,omitempty"`
	Clear bool   `json:"clear,omitempty"`
}

// BrowserConsoleMessage is one console line; Type "pageerror" is an
// uncaught exception.
type BrowserConsoleMessage struct {
	Seq  int64  `json:"seq"`
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int    `json:"line,omitempty"`
	Tab  int    `json:"tab"`
}

// BrowserConsoleResponse lists messages, oldest first; Dropped counts
// older ones that no longer fit the buffer.
type BrowserConsoleResponse struct {
	State    BrowserState            `json:"state"`
	Messages []BrowserConsoleMessage `json:"messages"`
	Dropped  int64                   `json:"dropped,omitempty"`
}

// BrowserNetworkRequest lists recent requests of the session. Static
// includes images, fonts, stylesheets and media (off by default). A
// non-zero BodyOf returns that request's response body, capped.
type BrowserNetworkRequest struct {
	Filter       string `json:"filter,omitempty"` // substring of the URL
	Limit        int    `json:"limit,omitempty"`
	Static       bool   `json:"static,omitempty"`
	FailedOnly   bool   `json:"failed_only,omitempty"`
	BodyOf       int64  `json:"body_of,omitempty"`
	MaxBodyBytes int    `json:"max_body_bytes,omitempty"`
}

// BrowserNetworkEntry is one request.
type BrowserNetworkEntry struct {
	ID           int64  `json:"id"`
	Method       string `json:"method"`
	URL          string `json:"url"`
	ResourceType string `json:"resource_type"`
	Status       int    `json:"status,omitempty"`
	Failure      string `json:"failure,omitempty"`
	MIME         string `json:"mime,omitempty"`
	DurationMS   int64  `json:"duration_ms,omitempty"`
	Tab          int    `json:"tab"`
}

// BrowserBody is a fetched body: Text when it is text, else Base64.
type BrowserBody struct {
	URL       string `json:"url"`
	MIME      string `json:"mime,omitempty"`
	Text      string `json:"text,omitempty"`
	Base64    string `json:"base64,omitempty"`
	Size      int    `json:"size"`
	Truncated bool   `json:"truncated,omitempty"`
}

// BrowserNetworkResponse lists requests, oldest first.
type BrowserNetworkResponse struct {
	State    BrowserState          `json:"state"`
	Requests []BrowserNetworkEntry `json:"requests"`
	Body     *BrowserBody          `json:"body,omitempty"`
}

// BrowserImagesRequest lists the <img> elements of the current tab.
type BrowserImagesRequest struct {
	Limit int `json:"limit,omitempty"`
}

// BrowserImage is one image.
type BrowserImage struct {
	Src     string `json:"src"`
	Alt     string `json:"alt"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Natural string `json:"natural,omitempty"` // "WxH" of the image file
	Visible bool   `json:"visible"`
	Loaded  bool   `json:"loaded"`
}

// BrowserImagesResponse lists them in document order.
type BrowserImagesResponse struct {
	State  BrowserState   `json:"state"`
	Images []BrowserImage `json:"images"`
	Total  int            `json:"total"`
}

// BrowserComputedStyleRequest reads getComputedStyle: of Ref, or of the
// rendered elements of the page (those with text or a box), up to Limit.
// Properties default to colour, background, typography, border and shadow.
type BrowserComputedStyleRequest struct {
	Ref        string   `json:"ref,omitempty"`
	Properties []string `json:"properties,omitempty"`
	Limit      int      `json:"limit,omitempty"`
}

// BrowserStyledElement is one element's computed style.
type BrowserStyledElement struct {
	Tag    string            `json:"tag"`
	Text   string            `json:"text,omitempty"`
	Box    string            `json:"box,omitempty"` // "x,y,w,h"
	Styles map[string]string `json:"styles"`
}

// BrowserComputedStyleResponse lists the elements.
type BrowserComputedStyleResponse struct {
	State    BrowserState           `json:"state"`
	Elements []BrowserStyledElement `json:"elements"`
	Total    int                    `json:"total"`
}

// BrowserScreenshotRequest captures the viewport, the full page or the
// element Ref as PNG (default), JPEG or WebP. The file goes to the
// personality's workspace folder (Name is a file name there; default a
// timestamped one). Marks draws numbered boxes over the viewport's
// candidate targets (set-of-marks) and lists them in the response: viewport
// only, PNG or JPEG.
type BrowserScreenshotRequest struct {
	Mode     string `json:"mode,omitempty" enum:"viewport|full|element"`
	Ref      string `json:"ref,omitempty"`
	Name     string `json:"name,omitempty"`
	NoInline bool   `json:"no_inline,omitempty"`
	Format   string `json:"format,omitempty" enum:"png|jpeg|jpg|webp"` // png (default)
	Quality  int    `json:"quality,omitempty"`                         // 1-100, jpeg and webp (default 80)
	Marks    bool   `json:"marks,omitempty"`
}

// BrowserScreenshotResponse gives the file and, unless NoInline, the image.
type BrowserScreenshotResponse struct {
	State  BrowserState `json:"state"`
	Path   string       `json:"path"`
	MIME   string       `json:"mime"`
	Data   string       `json:"data,omitempty"` // base64
	Bytes  int          `json:"bytes"`
	Width  int          `json:"width,omitempty"`
	Height int          `json:"height,omitempty"`
	// Marks is the legend of a marked screenshot, in mark order;
	// MarksTotal counts the candidates found, more than len(Marks) when
	// the list was capped (MaxScreenMarks).
	Marks      []ScreenMark `json:"marks,omitempty"`
	MarksTotal int          `json:"marks_total,omitempty"`
}

// MaxScreenMarks caps the marks of one marked screenshot.
const MaxScreenMarks = 200

// ScreenMark is one numbered box of a marked screenshot. Ref is the
// element's ref from the page's snapshot (click it with it), empty for a
// region without one (a canvas, an element that only looks clickable:
// click the box's centre). Role is the snapshot's role, or "canvas" or
// "clickable" for a region without a ref; Name is its accessible name or
// label, page content, cut at 60 characters. Box is x, y, width, height in
// CSS pixels, viewport coordinates, clipped to the viewport; the marked
// image is captured at CSS scale, so its pixels are the same coordinates.
type ScreenMark struct {
	Mark int    `json:"mark"`
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	Box  [4]int `json:"box"`
}

// BrowserReadRequest asks for the current tab's readable text: the
// visible text of the main content, chosen as Mozilla's Readability
// chooses it (text and link density, class and id weights, siblings that
// belong with it), without navigation, forms, comments and boilerplate,
// its title first. MaxBytes lowers the host's cap
// (browser.read_max_bytes); it cannot raise it.
type BrowserReadRequest struct {
	MaxBytes int `json:"max_bytes,omitempty"`
}

// BrowserReadResponse holds the text, cut at a UTF-8 boundary when it
// exceeds the cap. Bytes is its size before the cut. It is page content:
// untrusted.
type BrowserReadResponse struct {
	State     BrowserState `json:"state"`
	Text      string       `json:"text"`
	Bytes     int          `json:"bytes"`
	Limit     int          `json:"limit"`
	Truncated bool         `json:"truncated,omitempty"`
	// Root is the tag of the smallest element of the page that holds the
	// text read ("article", "main", "div"...), "body" for the whole page.
	Root string `json:"root"`
}

// BrowserPDFRequest prints the current tab to a PDF in the workspace.
type BrowserPDFRequest struct {
	Name      string `json:"name,omitempty"`
	Landscape bool   `json:"landscape,omitempty"`
	Format    string `json:"format,omitempty" enum:"Letter|Legal|Tabloid|Ledger|A0|A1|A2|A3|A4|A5|A6"` // A4 (default)
}

// BrowserPDFResponse gives the file.
type BrowserPDFResponse struct {
	State BrowserState `json:"state"`
	Path  string       `json:"path"`
	Bytes int          `json:"bytes"`
}

// BrowserEvaluateRequest runs a JavaScript expression or function in the
// page, or a function of the element Ref. Needs browser.eval.
type BrowserEvaluateRequest struct {
	Expression string `json:"expression"`
	Ref        string `json:"ref,omitempty"`
	MaxBytes   int    `json:"max_bytes,omitempty"`
}

// BrowserEvaluateResponse holds the JSON of the value. It is page content:
// untrusted.
type BrowserEvaluateResponse struct {
	State     BrowserState    `json:"state"`
	Result    json.RawMessage `json:"result"`
	Truncated bool            `json:"truncated,omitempty"`
}

// BrowserSourcesRequest lists the scripts and stylesheets of the current
// tab, or, with Fetch, returns one of them (an http(s) URL the page loaded,
// or "inline:<kind>:<n>"), capped at MaxBytes.
type BrowserSourcesRequest struct {
	Kind     string `json:"kind,omitempty" enum:"script|stylesheet"` // absent: both
	Fetch    string `json:"fetch,omitempty"`
	MaxBytes int    `json:"max_bytes,omitempty"`
}

// BrowserSource is one script or stylesheet.
type BrowserSource struct {
	Kind  string `json:"kind"`
	URL   string `json:"url"` // inline:<kind>:<n> for inline ones
	Bytes int    `json:"bytes,omitempty"`
}

// BrowserSourcesResponse lists sources or carries the fetched one.
type BrowserSourcesResponse struct {
	State   BrowserState    `json:"state"`
	Sources []BrowserSource `json:"sources,omitempty"`
	Fetched *BrowserBody    `json:"fetched,omitempty"`
}
