package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// vendorMatches maps a corpus meta vendor to the detector's vendor names.
func vendorMatches(meta, got string) bool {
	g := strings.ToLower(got)
	switch meta {
	case "cloudflare":
		return strings.Contains(g, "cloudflare")
	case "akamai":
		return strings.Contains(g, "akamai")
	case "perimeterx":
		return strings.Contains(g, "perimeterx")
	case "imperva-incapsula":
		return strings.Contains(g, "incapsula") || strings.Contains(g, "imperva")
	case "sucuri":
		return strings.Contains(g, "sucuri")
	case "aws-cloudfront-waf":
		return strings.Contains(g, "cloudfront") || strings.Contains(g, "aws")
	case "distil":
		return strings.Contains(g, "distil")
	}
	return strings.Contains(g, meta)
}

func detectReq(r rendered, takeover bool) abi.HookRequest {
	return abi.HookRequest{Role: abi.HookDetect, Tool: "browser_navigate", HasTakeover: takeover, Result: &abi.Result{
		Text: "navigated", Page: &abi.Page{URL: r.URL, Status: r.Status, Headers: r.Headers, Title: r.Title, Text: r.Text, HTML: r.HTML},
	}}
}

func detectSection(h *hooks, pages, walls []rendered, wallDocs []doc, verbose bool) {
	fp := 0
	var fpList []string
	for _, p := range pages {
		resp, err := h.call(h.detect, detectReq(p, false))
		if err != nil {
			fmt.Fprintf(os.Stderr, "detect %s: %v\n", p.Name, err)
			continue
		}
		if resp.Error != nil {
			fp++
			fpList = append(fpList, fmt.Sprintf("%s (HTTP %d): %s", p.Name, p.Status, resp.Error.Details["marker"]))
		}
	}
	var realWalls, caught, rightVendor, controls, controlFP int
	var lines []string
	for i, w := range walls {
		d := wallDocs[i]
		resp, err := h.call(h.detect, detectReq(w, i%2 == 0))
		if err != nil {
			fmt.Fprintf(os.Stderr, "detect %s: %v\n", w.Name, err)
			continue
		}
		got, marker := "-", ""
		if resp.Error != nil {
			got, marker = resp.Error.Details["vendor"], resp.Error.Details["marker"]
		}
		verdict := ""
		if d.WallKnd == "not-a-wall" {
			controls++
			if resp.Error != nil {
				controlFP++
				verdict = "FALSE POSITIVE"
			} else {
				verdict = "ok (control)"
			}
		} else {
			realWalls++
			switch {
			case resp.Error == nil:
				verdict = "MISSED"
			case vendorMatches(d.Vendor, got):
				caught++
				rightVendor++
				verdict = "ok"
			default:
				caught++
				verdict = "wrong vendor"
			}
		}
		lines = append(lines, fmt.Sprintf("| %s | %s/%s | %d | %s | %s | %s |", w.Name, d.Vendor, d.WallKnd, w.Status, got, clipMarker(marker), verdict))
	}
	fmt.Println("### Bot-wall detection (blockdetect)")
	fmt.Println()
	fmt.Printf("Pages served on loopback and rendered by Chromium through playwright-go (status, headers, title, body innerText and raw response body, each capped at the host's default detect_max_mb, %d MiB), as a navigation would see them. Walls get the status and headers their .meta.json records, else 200, so most must be recognised from content alone.\n", browser.DefaultDetectMaxMB)
	fmt.Println()
	fmt.Println("| measure | value |")
	fmt.Println("|---|---|")
	fmt.Printf("| false positives on corpus/pages | %d / %d |\n", fp, len(pages))
	fmt.Printf("| walls detected | %d / %d |\n", caught, realWalls)
	fmt.Printf("| walls detected with the right vendor | %d / %d |\n", rightVendor, realWalls)
	fmt.Printf("| not-a-wall controls flagged | %d / %d |\n", controlFP, controls)
	fmt.Println()
	for _, f := range fpList {
		fmt.Println("- false positive:", f)
	}
	if verbose || true {
		fmt.Println("| wall | meta vendor/kind | status | detected vendor | marker | verdict |")
		fmt.Println("|---|---|---|---|---|---|")
		for _, l := range lines {
			fmt.Println(l)
		}
		fmt.Println()
	}
}

func clipMarker(m string) string {
	m = strings.ReplaceAll(m, "|", `\|`)
	if len(m) > 70 {
		return m[:70] + "…"
	}
	return m
}
