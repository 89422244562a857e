// Command extract_links is a third-party wasmwright plugin built only from
// the public plugin-sdk: given HTML, it lists the links with their text.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o extract_links.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// Args are the tool's input; the schema agents see is derived from it.
type Args struct {
	HTML string `json:"html" desc:"the HTML of a page or fragment"`
	Base string `json:"base,omitempty" desc:"a base URL to resolve relative links against"`
	Max  int    `json:"max,omitempty" desc:"at most this many links (default all)" min:"1"`
}

// Link is one link found.
type Link struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

func init() {
	sdk.Plugin("extract_links", "1.0.0", "Lists the links of an HTML document with their text.")
	// It records each extraction in the host's event sink, so it needs the
	// events grant: a personality that does not grant it cannot load it.
	sdk.Needs("events")
	sdk.Tool("extract_links", "Given HTML, list its links (href and visible text).", run, sdk.ReadOnly(), sdk.Risk(abi.RiskRead))
}

func run(c *sdk.Call, in Args) (*abi.Result, error) {
	if strings.TrimSpace(in.HTML) == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "html is empty: pass the document's HTML in \"html\"")
	}
	links := Extract(in.HTML, in.Base)
	if in.Max > 0 && len(links) > in.Max {
		links = links[:in.Max]
	}
	data, err := json.Marshal(links)
	if err != nil {
		return nil, err
	}
	if err := sdk.EmitEvent("extract_links.done", map[string]int{"links": len(links), "html_bytes": len(in.HTML)}); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d links", len(links))
	for _, l := range links {
		fmt.Fprintf(&b, "\n- %s -> %s", l.Text, l.Href)
	}
	return &abi.Result{Text: b.String(), Data: data}, nil
}

func main() {}
