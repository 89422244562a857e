package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/leakforms"
)

// maskCase is one generated result holding a secret in one encoding.
type maskCase struct {
	value, form, encoded string
	req                  abi.HookRequest
}

// genSecret makes a secret of the kinds vaults hold: passwords with
// punctuation and spaces, API tokens, PINs, non-ASCII passphrases.
func genSecret(r *rand.Rand) string {
	const pw = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*()-_=+[]{};:'\",.<>/?\\| ~`"
	switch r.IntN(4) {
	case 0:
		b := make([]byte, 8+r.IntN(16))
		for i := range b {
			b[i] = pw[r.IntN(len(pw))]
		}
		return string(b)
	case 1:
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return "tok_" + hex.EncodeToString(b)
	case 2:
		return fmt.Sprintf("%06d", r.IntN(1000000))
	default:
		words := []string{"Grüße", "très", "секрет", "naïve", "日本", "żółw", "fjörd", "mañana"}
		return words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + fmt.Sprint(r.IntN(100))
	}
}

func encodings(v string, r *rand.Rand) map[string]string {
	pre := make([]byte, 1+r.IntN(5))
	post := make([]byte, r.IntN(5))
	for i := range pre {
		pre[i] = byte(r.IntN(256))
	}
	for i := range post {
		post[i] = byte(r.IntN(256))
	}
	dec, hx := leakforms.HTMLRefs(v, false)
	jm, _ := json.Marshal(v)
	embed := append(append(append([]byte{}, pre...), v...), post...)
	return map[string]string{
		"raw":             v,
		"url-query (+)":   url.QueryEscape(v),
		"url-path (%20)":  url.PathEscape(v),
		"html-escaped":    html.EscapeString(v),
		"html-decimal":    dec,
		"html-hex":        hx,
		"json-escaped":    string(jm[1 : len(jm)-1]),
		"json-\\u":        leakforms.JSONEscapes(v, true),
		"base64-std":      base64.StdEncoding.EncodeToString([]byte(v)),
		"base64-url":      base64.URLEncoding.EncodeToString([]byte(v)),
		"base64-embedded": base64.StdEncoding.EncodeToString(embed),
		"base64url-embed": base64.RawURLEncoding.EncodeToString(embed),
		"hex-upper":       strings.ToUpper(hex.EncodeToString([]byte(v))),
	}
}

// maskPages masks every corpus page's snapshot and navigation facts, as the
// last hook of a real navigation would, to time the masker on large results.
func maskPages(h *hooks, pages []rendered) {
	h.mu.Lock()
	h.maskValues["pages"] = []string{"correct horse battery", "tok_5f2b9c0e7a1d"}
	h.mu.Unlock()
	for _, p := range pages {
		res := &abi.Result{Text: "navigated", Snapshot: p.Snapshot, Page: &abi.Page{URL: p.URL, Status: p.Status, Headers: p.Headers, Title: p.Title, Text: p.Text, HTML: p.HTML}}
		if _, err := h.call(h.mask, abi.HookRequest{Role: abi.HookRole("mask (whole corpus page)"), Tool: "browser_navigate", Session: "pages", Result: res}); err != nil {
			fmt.Fprintf(os.Stderr, "mask %s: %v\n", p.Name, err)
		}
	}
}

func maskSection(h *hooks, n int) {
	r := rand.New(rand.NewPCG(1, 2))
	total, leaks, failed := 0, 0, 0
	leakBy := map[string]int{}
	casesBy := map[string]int{}
	for i := 0; i < n; i++ {
		v := genSecret(r)
		other := genSecret(r)
		session := fmt.Sprintf("s%d", i)
		h.mu.Lock()
		h.maskValues[session] = []string{v, other}
		h.mu.Unlock()
		for form, enc := range encodings(v, r) {
			total++
			casesBy[form]++
			// The secret in one field, chosen at random, like an echo would
			// carry it.
			res := &abi.Result{Text: "navigated"}
			var errv *abi.Error
			switch r.IntN(7) {
			case 0:
				res.Text = "The page says: welcome back, " + enc + "!"
			case 1:
				res.Snapshot = "- textbox \"Password\" [ref=e8]: " + enc + "\n- link \"Reset\" [ref=e9]"
			case 2:
				d, _ := json.Marshal(map[string]any{"echo": map[string]string{"q": enc}, "n": 1})
				res.Data = d
			case 3:
				res.Page = &abi.Page{URL: "https://app.test/cb?code=" + enc, Status: 200, Headers: map[string]string{"set-cookie": "sid=" + enc}, Title: "x", HTML: "<input value=\"" + enc + "\">"}
			case 4:
				res.Warnings = []string{"form echoed " + enc}
				res.Events = []string{"request body: password=" + enc}
			case 5:
				errv = &abi.Error{Code: abi.CodeExecutionFailed, Message: "login failed for " + enc, Details: map[string]string{"typed": enc}}
			default:
				res.Images = []abi.Image{{MIME: "text/plain", Data: enc}}
			}
			resp, err := h.call(h.mask, abi.HookRequest{Role: abi.HookMask, Tool: "browser_type", Session: session, Result: res, Error: errv})
			if err != nil {
				failed++
				continue
			}
			b, _ := json.Marshal(resp)
			var doc any
			json.Unmarshal(b, &doc)
			for _, s := range leakforms.Strings(doc) {
				if leakforms.Found(s, v) != "" {
					leaks++
					leakBy[form]++
					if leakBy[form] <= 2 {
						fmt.Fprintf(os.Stderr, "leak (%s) of %q: %.200s\n", form, v, s)
					}
					break
				}
			}
		}
	}
	fmt.Println("### Secret masking (secretmask)")
	fmt.Println()
	fmt.Printf("%d generated secrets (passwords with punctuation and spaces, hex tokens, 6-digit PINs, non-ASCII passphrases), each in %d encodings placed in a random field (text, snapshot, data, page URL/headers/HTML, warnings/events, error message/details, image data), with a second secret in the session: %d hook calls.\n\n", n, len(casesBy), total)
	fmt.Println("| measure | value |")
	fmt.Println("|---|---|")
	fmt.Printf("| leaks (value readable raw or after URL/HTML/JSON/hex/base64 decoding at any offset) | %d / %d |\n", leaks, total)
	fmt.Printf("| masker failures | %d |\n", failed)
	fmt.Println()
	for form, c := range leakBy {
		fmt.Printf("- leaks in %s: %d\n", form, c)
	}
}

func latencySection(h *hooks) {
	fmt.Println("### Hook latency through the sandbox (per call)")
	fmt.Println()
	fmt.Println("Wall-clock time of Plugin.Call (JSON in, JSON out, fast path) over every call made above, on this shared 2-core machine.")
	fmt.Println()
	fmt.Println("| hook | calls | median | p90 | p99 | max |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, role := range append(append([]abi.HookRole{}, abi.HookRoles()...), "mask (whole corpus page)") {
		xs := h.latency[role]
		if len(xs) == 0 {
			continue
		}
		ms := func(us float64) string { return fmt.Sprintf("%.2f ms", us/1000) }
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", role, len(xs), ms(median(xs)), ms(measure.Pct(xs, 0.9)), ms(measure.Pct(xs, 0.99)), ms(measure.Pct(xs, 1)))
	}
	fmt.Println()
}
