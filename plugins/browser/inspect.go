package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// The tools of this file, each declared with its description, its
// arguments (their struct) and its handler below.
func init() {
	sdk.Tool("browser_screenshot", descScreenshot, screenshot, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_pdf", descPDF, pdf, sdk.Requires(read), sdk.ReadOnly(), sdk.Risk(abi.RiskDownload)) // it writes a file
	sdk.Tool("browser_console", descConsole, console, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_network", descNetwork, network, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_get_images", descImages, images, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_computed_style", descComputedStyle, computedStyle, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_storage", descStorage, storage, sdk.Requires(read), sdk.ReadOnly())
	// A source fetch goes out with the session's cookies: an act.
	sdk.Tool("browser_sources", descSources, sources, sdk.Requires(read), sdk.ReadOnly(), sdk.RiskWhen("fetch", abi.RiskAct))
}

// Inspecting the page beyond its snapshot: screenshots, PDF, console,
// network, images, computed styles, storage, sources.

const descScreenshot = `Take a screenshot of the viewport (default), the full scrollable page (mode "full"), or one element (ref), as PNG (default), or format "jpeg" or "webp" with quality 1-100 (default 80; far fewer bytes). The image is returned inline and saved in this agent's workspace folder; the result gives the file path. Use it to see layout, images, charts or canvas content that the snapshot cannot describe. marks true (viewport, png or jpeg) draws a numbered box over everything that looks clickable, canvases included, and lists each mark with its ref (if it has one), role, name and box in viewport pixels: click a mark by its ref, or inside its box with x/y. To act on elements, use refs from browser_snapshot, not pixels; coordinates from a screenshot work with browser_click x/y only as a last resort.`

type ScreenshotArgs struct {
	Mode    string `json:"mode,omitempty" enum:"viewport|full|element" desc:"viewport (default), the full scrollable page, or one element (with ref)"`
	Ref     string `json:"ref,omitempty" desc:"the element to capture"`
	Name    string `json:"name,omitempty" desc:"file name in the workspace folder (default: timestamped)"`
	Inline  *bool  `json:"inline,omitempty" desc:"return the image in the result (default true); false only saves the file"`
	Format  string `json:"format,omitempty" enum:"png|jpeg|webp" desc:"image format (default png); jpeg and webp are much smaller"`
	Quality int    `json:"quality,omitempty" min:"1" max:"100" desc:"jpeg or webp quality (default 80)"`
	Marks   bool   `json:"marks,omitempty" desc:"draw numbered boxes over what can be clicked in the viewport and list them (mark, ref, role, name, box); viewport only, png or jpeg"`
}

func screenshot(c *sdk.Call, in ScreenshotArgs) (*abi.Result, error) {
	noInline := in.Inline != nil && !*in.Inline
	r, err := sdk.BrowserScreenshot(abi.BrowserScreenshotRequest{Mode: in.Mode, Ref: in.Ref, Name: in.Name, NoInline: noInline, Format: in.Format, Quality: in.Quality, Marks: in.Marks})
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("Screenshot %dx%d saved to %s (%d KB).", r.Width, r.Height, r.Path, (r.Bytes+1023)/1024)
	if in.Marks {
		text += "\n" + legend(r.Marks, r.MarksTotal)
	}
	res := result(text, r.State, "")
	res.Files = []string{r.Path}
	if r.Data != "" {
		res.Images = []abi.Image{{MIME: r.MIME, Data: r.Data}}
	}
	return res, nil
}

// legend lists a marked screenshot's marks, one line each:
// [3] e12 button "Sign in" box=x,y,w,h.
func legend(marks []abi.ScreenMark, total int) string {
	if len(marks) == 0 {
		return "No marks: nothing that looks clickable shows in the viewport. Scroll (browser_scroll) or take a browser_snapshot."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d marks. A mark with a ref: browser_click ref; without one: browser_click x,y at a point inside its box (viewport CSS pixels, as in the image).\n", len(marks))
	for _, m := range marks {
		fmt.Fprintf(&b, "[%d]", m.Mark)
		for _, part := range []string{m.Ref, m.Role} {
			if part != "" {
				b.WriteString(" " + part)
			}
		}
		if m.Name != "" {
			fmt.Fprintf(&b, " %q", m.Name)
		}
		fmt.Fprintf(&b, " box=%d,%d,%d,%d\n", m.Box[0], m.Box[1], m.Box[2], m.Box[3])
	}
	if total > len(marks) {
		fmt.Fprintf(&b, "Showing the first %d of %d marks, top to bottom: scroll down (browser_scroll) and take another marked screenshot for the rest.\n", len(marks), total)
	}
	return strings.TrimRight(b.String(), "\n")
}

const descPDF = `Print the current page to a PDF file in this agent's workspace folder (A4 by default, or format "Letter"...; landscape optional). Returns the file path and size.`

type PDFArgs struct {
	Name      string `json:"name,omitempty" desc:"file name in the workspace folder (default: timestamped)"`
	Format    string `json:"format,omitempty" enum:"A4|Letter|Legal|A3|A5|Tabloid" desc:"paper size (default A4)"`
	Landscape bool   `json:"landscape,omitempty" desc:"true: landscape pages (default portrait)"`
}

func pdf(c *sdk.Call, in PDFArgs) (*abi.Result, error) {
	r, err := sdk.BrowserPDF(abi.BrowserPDFRequest{Name: in.Name, Format: in.Format, Landscape: in.Landscape})
	if err != nil {
		return nil, err
	}
	res := result(fmt.Sprintf("PDF saved to %s (%d KB).", r.Path, (r.Bytes+1023)/1024), r.State, "")
	res.Files = []string{r.Path}
	return res, nil
}

const descConsole = `Read the browser console of this session: console.log/warn/error output and uncaught JavaScript errors (type "pageerror"), oldest first, with the tab they came from. Filter with level ("error" shows errors only; "warning" shows warnings and errors). Pass since = the last seq you saw to get only newer messages, or clear to empty the log after reading.`

type ConsoleArgs struct {
	Level string `json:"level,omitempty" enum:"error|warning|info|debug" desc:"this level and more severe (default: everything)"`
	Since int64  `json:"since,omitempty" min:"0" desc:"only messages after this seq"`
	Limit int    `json:"limit,omitempty" min:"1" max:"500" desc:"at most this many, newest kept (default 100)"`
	Clear bool   `json:"clear,omitempty" desc:"empty the log after reading"`
}

func console(c *sdk.Call, in ConsoleArgs) (*abi.Result, error) {
	r, err := sdk.BrowserConsole(abi.BrowserConsoleRequest{Level: in.Level, Since: in.Since, Limit: in.Limit, Clear: in.Clear})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if len(r.Messages) == 0 {
		b.WriteString("No console messages")
		if in.Level != "" {
			b.WriteString(" at level " + in.Level + " or above")
		}
		b.WriteString(".")
	} else {
		fmt.Fprintf(&b, "%d console message(s):", len(r.Messages))
		for _, m := range r.Messages {
			fmt.Fprintf(&b, "\n#%d [%s] %s", m.Seq, m.Type, m.Text)
			if m.URL != "" {
				fmt.Fprintf(&b, " (%s:%d)", m.URL, m.Line)
			}
		}
		if r.Dropped > 0 {
			fmt.Fprintf(&b, "\n(%d older message(s) not shown)", r.Dropped)
		}
	}
	return withData(result(b.String(), r.State, ""), r.Messages), nil
}

const descNetwork = `List the recent HTTP requests of this session (method, URL, status, type, duration, failure) with an id each, oldest first. Images, fonts, stylesheets and media are hidden unless static is true. Use filter (a URL substring) or failed_only to narrow it. Pass body_of = an id to get that response's body (text, or base64 for binary; capped at max_body_bytes, default 100 KB): useful to read the JSON an app fetched.`

type NetworkArgs struct {
	Filter       string `json:"filter,omitempty" desc:"only URLs containing this"`
	FailedOnly   bool   `json:"failed_only,omitempty" desc:"only failed requests and HTTP errors (>= 400)"`
	Static       bool   `json:"static,omitempty" desc:"include images, fonts, stylesheets and media"`
	Limit        int    `json:"limit,omitempty" min:"1" max:"300" desc:"at most this many, newest kept (default 50)"`
	BodyOf       int64  `json:"body_of,omitempty" min:"1" desc:"return the response body of the request with this id"`
	MaxBodyBytes int    `json:"max_body_bytes,omitempty" min:"1" desc:"cap on the body (default 100 KB)"`
}

func network(c *sdk.Call, in NetworkArgs) (*abi.Result, error) {
	r, err := sdk.BrowserNetwork(abi.BrowserNetworkRequest{Filter: in.Filter, FailedOnly: in.FailedOnly, Static: in.Static, Limit: in.Limit, BodyOf: in.BodyOf, MaxBodyBytes: in.MaxBodyBytes})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if r.Body != nil {
		fmt.Fprintf(&b, "Body of request %d (%s, %s, %d bytes", in.BodyOf, r.Body.URL, orDash(r.Body.MIME), r.Body.Size)
		if r.Body.Truncated {
			b.WriteString(", truncated")
		}
		b.WriteString("):\n")
		if r.Body.Text != "" {
			b.WriteString(r.Body.Text)
		} else {
			b.WriteString("(binary, base64 in data)")
		}
		return withData(result(b.String(), r.State, ""), r.Body), nil
	}
	fmt.Fprintf(&b, "%d request(s):", len(r.Requests))
	for _, e := range r.Requests {
		status := fmt.Sprint(e.Status)
		if e.Failure != "" {
			status = "FAILED " + e.Failure
		} else if e.Status == 0 {
			status = "pending"
		}
		fmt.Fprintf(&b, "\n[%d] %s %s -> %s (%s, %dms)", e.ID, e.Method, e.URL, status, e.ResourceType, e.DurationMS)
	}
	if len(r.Requests) > 0 {
		b.WriteString("\nPass body_of=<id> to read a response body.")
	}
	return withData(result(b.String(), r.State, ""), r.Requests), nil
}

const descImages = `List the images (<img>) of the current page: source URL, alt text, displayed size, natural size, whether each is visible and loaded. Useful to check alt texts or find an image's URL.`

type ImagesArgs struct {
	Limit int `json:"limit,omitempty" min:"1" max:"1000" desc:"at most this many (default 200)"`
}

func images(c *sdk.Call, in ImagesArgs) (*abi.Result, error) {
	r, err := sdk.BrowserImages(abi.BrowserImagesRequest{Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d image(s)", r.Total)
	if len(r.Images) < r.Total {
		fmt.Fprintf(&b, ", first %d shown", len(r.Images))
	}
	b.WriteString(":")
	for i, im := range r.Images {
		alt := fmt.Sprintf("%q", im.Alt)
		if im.Alt == "" {
			alt = "(no alt)"
		}
		flags := ""
		if !im.Visible {
			flags += " hidden"
		}
		if !im.Loaded {
			flags += " not-loaded"
		}
		fmt.Fprintf(&b, "\n%d. %s %s %dx%d%s", i+1, alt, im.Src, im.Width, im.Height, flags)
	}
	return withData(result(b.String(), r.State, ""), r.Images), nil
}

const descComputedStyle = `Report the computed CSS of the current page: colour, background, fonts, borders, shadows, spacing and size. With ref: that one element. Without: every rendered element that shows text or is a control or image, in document order (up to limit, default 60). Answers what the page looks like, where the snapshot answers what it is. Pass properties to choose CSS property names.`

type ComputedStyleArgs struct {
	Ref        string   `json:"ref,omitempty" desc:"one element; default: every rendered element with text, controls and images"`
	Properties []string `json:"properties,omitempty" desc:"CSS property names (default: colour, background, font, border, shadow, spacing, size)"`
	Limit      int      `json:"limit,omitempty" min:"1" max:"500" desc:"at most this many elements (default 60)"`
}

func computedStyle(c *sdk.Call, in ComputedStyleArgs) (*abi.Result, error) {
	r, err := sdk.BrowserComputedStyle(abi.BrowserComputedStyleRequest{Ref: in.Ref, Properties: in.Properties, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Computed style of %d element(s)", len(r.Elements))
	if r.Total > len(r.Elements) {
		fmt.Fprintf(&b, " of %d", r.Total)
	}
	b.WriteString(":")
	for _, e := range r.Elements {
		fmt.Fprintf(&b, "\n<%s>", e.Tag)
		if e.Text != "" {
			fmt.Fprintf(&b, " %q", e.Text)
		}
		fmt.Fprintf(&b, " box=%s", e.Box)
		for _, p := range sortedKeys(e.Styles) {
			fmt.Fprintf(&b, "; %s: %s", p, e.Styles[p])
		}
	}
	return withData(result(b.String(), r.State, ""), r.Elements), nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

const descStorage = `List the current site's localStorage and sessionStorage keys and the cookies the page would send (name, domain, path, expiry, flags), with sizes. Values are hidden unless values is true; ask for them only when you need them, they may hold session tokens. kind narrows it to local, session or cookies.`

type StorageArgs struct {
	Kind   string `json:"kind,omitempty" enum:"all|local|session|cookies" desc:"what to list (default all)"`
	Values bool   `json:"values,omitempty" desc:"include values (they may be secrets: ask only when needed)"`
}

func storage(c *sdk.Call, in StorageArgs) (*abi.Result, error) {
	r, err := sdk.BrowserStorage(abi.BrowserStorageRequest{Kind: in.Kind, Values: in.Values})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Storage of %s", orDash(r.Origin))
	list := func(name string, items []abi.BrowserStorageItem) {
		fmt.Fprintf(&b, "\n%s (%d):", name, len(items))
		for _, i := range items {
			if in.Values {
				fmt.Fprintf(&b, "\n  %s = %q", i.Name, i.Value)
			} else {
				fmt.Fprintf(&b, "\n  %s (%d chars)", i.Name, i.Size)
			}
		}
	}
	if in.Kind == "" || in.Kind == "all" || in.Kind == "local" {
		list("localStorage", r.Local)
	}
	if in.Kind == "" || in.Kind == "all" || in.Kind == "session" {
		list("sessionStorage", r.Session)
	}
	if in.Kind == "" || in.Kind == "all" || in.Kind == "cookies" {
		fmt.Fprintf(&b, "\ncookies (%d):", len(r.Cookies))
		for _, k := range r.Cookies {
			fmt.Fprintf(&b, "\n  %s", k.Name)
			if in.Values {
				fmt.Fprintf(&b, " = %q", k.Value)
			}
			fmt.Fprintf(&b, " (domain %s, path %s", k.Domain, k.Path)
			if k.Expires == 0 {
				b.WriteString(", session")
			}
			if k.HTTPOnly {
				b.WriteString(", HttpOnly")
			}
			if k.Secure {
				b.WriteString(", Secure")
			}
			b.WriteString(")")
		}
	}
	if !in.Values {
		b.WriteString("\nValues hidden: pass values=true to see them.")
	}
	return withData(result(b.String(), r.State, ""), r), nil
}

const descSources = `List the scripts and stylesheets of the current page (external URLs, and inline ones named inline:script:N / inline:stylesheet:N). Pass fetch = one of those names or URLs to read its text, capped at max_bytes (default 100 KB).`

type SourcesArgs struct {
	Kind     string `json:"kind,omitempty" enum:"script|stylesheet" desc:"only scripts or only stylesheets"`
	Fetch    string `json:"fetch,omitempty" desc:"a URL or inline:script:N / inline:stylesheet:N from the list, to read"`
	MaxBytes int    `json:"max_bytes,omitempty" min:"1" desc:"cap on the fetched text (default 100 KB)"`
}

func sources(c *sdk.Call, in SourcesArgs) (*abi.Result, error) {
	r, err := sdk.BrowserSources(abi.BrowserSourcesRequest{Kind: in.Kind, Fetch: in.Fetch, MaxBytes: in.MaxBytes})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if f := r.Fetched; f != nil {
		fmt.Fprintf(&b, "%s (%s, %d bytes", f.URL, orDash(f.MIME), f.Size)
		if f.Truncated {
			b.WriteString(", truncated")
		}
		b.WriteString("):\n")
		if f.Text != "" {
			b.WriteString(f.Text)
		} else {
			b.WriteString("(binary, base64 in data)")
		}
		return withData(result(b.String(), r.State, ""), f), nil
	}
	fmt.Fprintf(&b, "%d source(s):", len(r.Sources))
	for _, s := range r.Sources {
		fmt.Fprintf(&b, "\n%s %s", s.Kind, s.URL)
		if s.Bytes > 0 {
			fmt.Fprintf(&b, " (%d chars)", s.Bytes)
		}
	}
	return withData(result(b.String(), r.State, ""), r.Sources), nil
}
