package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Mask is what every occurrence of a secret becomes.
const Mask = "••••••"

// masker hides a set of values in any string, raw or encoded.
//
// Per value it compiles one regular expression in which every character may
// appear raw or in any of its escaped forms, mixed freely:
//
//   - URL encoding: %HH of each UTF-8 byte (either hex case), + for a space
//   - HTML entities: &#DDD; &#xHH; (leading zeros, optional ;) and the named
//     entities of ASCII punctuation and Latin-1 letters
//   - JSON / JavaScript escapes: \uXXXX (and surrogate pairs), \" \\ \/ \n...
//
// and it searches for base64 (standard and URL alphabets, padded or not) at
// the three alignments a value can take inside a longer base64 string, and
// for hex in upper and lower case.
type masker struct {
	res    []*regexp.Regexp
	blobs  []string // base64 cores and hex forms, longest first
	values []string
}

func newMasker(values []string) *masker {
	m := &masker{}
	seen := map[string]bool{}
	var vs []string
	for _, v := range values {
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		vs = append(vs, v)
	}
	// Longer values first, so a value containing another is hidden whole.
	sort.Slice(vs, func(i, j int) bool {
		if len(vs[i]) != len(vs[j]) {
			return len(vs[i]) > len(vs[j])
		}
		return vs[i] < vs[j]
	})
	m.values = vs
	blobSeen := map[string]bool{}
	for _, v := range vs {
		m.res = append(m.res, regexp.MustCompile(charPattern(v)))
		if len(v) < minEncodedLen {
			continue
		}
		for _, b := range binaryForms(v) {
			if !blobSeen[b] {
				blobSeen[b] = true
				m.blobs = append(m.blobs, b)
			}
		}
	}
	sort.Slice(m.blobs, func(i, j int) bool {
		if len(m.blobs[i]) != len(m.blobs[j]) {
			return len(m.blobs[i]) > len(m.blobs[j])
		}
		return m.blobs[i] < m.blobs[j]
	})
	return m
}

// minEncodedLen: values shorter than this are masked raw and escaped, but
// not as base64 or hex, whose fragments would then be a handful of
// characters found by chance in any base64 blob.
const minEncodedLen = 4

// mask returns s with every occurrence hidden.
func (m *masker) mask(s string) string {
	if s == "" {
		return s
	}
	for _, re := range m.res {
		if re.MatchString(s) {
			s = re.ReplaceAllLiteralString(s, Mask)
		}
	}
	for _, b := range m.blobs {
		if strings.Contains(s, b) {
			s = maskBlob(s, b)
		}
	}
	return s
}

// maskBlob replaces b in s and, for base64 fragments, the one character on
// each side that carries some of the value's bits.
func maskBlob(s, b string) string {
	var out strings.Builder
	for {
		i := strings.Index(s, b)
		if i < 0 {
			out.WriteString(s)
			return out.String()
		}
		start, end := i, i+len(b)
		if start > 0 && isB64(s[start-1]) {
			start--
		}
		if end < len(s) && isB64(s[end]) {
			end++
		}
		for end < len(s) && s[end] == '=' {
			end++
		}
		out.WriteString(s[:start])
		out.WriteString(Mask)
		s = s[end:]
	}
}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// binaryForms are the base64 fragments fully determined by v at each of the
// three alignments, in both alphabets, and v in hex.
func binaryForms(v string) []string {
	var res []string
	raw := []byte(v)
	for k := 0; k < 3; k++ {
		buf := append(make([]byte, k), raw...)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			e := enc.EncodeToString(buf)
			from := (8*k + 5) / 6
			to := 8 * (k + len(raw)) / 6
			if to-from >= 4 {
				res = append(res, e[from:to])
			}
		}
	}
	h := hex.EncodeToString(raw)
	res = append(res, strings.ToUpper(h), h)
	return res
}

// named entities by the character they stand for (HTML5 names, ASCII
// punctuation and Latin-1).
var entityNames = map[rune][]string{
	'&': {"amp", "AMP"}, '<': {"lt", "LT"}, '>': {"gt", "GT"}, '"': {"quot", "QUOT"}, '\'': {"apos"},
	' ': {}, '\t': {"Tab"}, '\n': {"NewLine"}, '!': {"excl"}, '#': {"num"}, '$': {"dollar"}, '%': {"percnt"},
	'(': {"lpar"}, ')': {"rpar"}, '*': {"ast", "midast"}, '+': {"plus"}, ',': {"comma"}, '.': {"period"},
	'/': {"sol"}, ':': {"colon"}, ';': {"semi"}, '=': {"equals"}, '?': {"quest"}, '@': {"commat"},
	'[': {"lsqb", "lbrack"}, '\\': {"bsol"}, ']': {"rsqb", "rbrack"}, '^': {"Hat"}, '_': {"lowbar", "UnderBar"},
	'`': {"grave", "DiacriticalGrave"}, '{': {"lcub", "lbrace"}, '|': {"verbar", "vert", "VerticalLine"},
	'}': {"rcub", "rbrace"}, '~': {"tilde"}, '-': {"hyphen", "dash"},
	0xA0: {"nbsp"}, 0xA3: {"pound"}, 0xA7: {"sect"}, 0xA9: {"copy"}, 0xAE: {"reg"}, 0xB0: {"deg"}, 0xB5: {"micro"},
	0xC0: {"Agrave"}, 0xC1: {"Aacute"}, 0xC2: {"Acirc"}, 0xC3: {"Atilde"}, 0xC4: {"Auml"}, 0xC5: {"Aring"}, 0xC6: {"AElig"},
	0xC7: {"Ccedil"}, 0xC8: {"Egrave"}, 0xC9: {"Eacute"}, 0xCA: {"Ecirc"}, 0xCB: {"Euml"}, 0xCC: {"Igrave"}, 0xCD: {"Iacute"},
	0xCE: {"Icirc"}, 0xCF: {"Iuml"}, 0xD1: {"Ntilde"}, 0xD2: {"Ograve"}, 0xD3: {"Oacute"}, 0xD4: {"Ocirc"}, 0xD5: {"Otilde"},
	0xD6: {"Ouml"}, 0xD8: {"Oslash"}, 0xD9: {"Ugrave"}, 0xDA: {"Uacute"}, 0xDB: {"Ucirc"}, 0xDC: {"Uuml"}, 0xDD: {"Yacute"},
	0xDF: {"szlig"}, 0xE0: {"agrave"}, 0xE1: {"aacute"}, 0xE2: {"acirc"}, 0xE3: {"atilde"}, 0xE4: {"auml"}, 0xE5: {"aring"},
	0xE6: {"aelig"}, 0xE7: {"ccedil"}, 0xE8: {"egrave"}, 0xE9: {"eacute"}, 0xEA: {"ecirc"}, 0xEB: {"euml"}, 0xEC: {"igrave"},
	0xED: {"iacute"}, 0xEE: {"icirc"}, 0xEF: {"iuml"}, 0xF1: {"ntilde"}, 0xF2: {"ograve"}, 0xF3: {"oacute"}, 0xF4: {"ocirc"},
	0xF5: {"otilde"}, 0xF6: {"ouml"}, 0xF8: {"oslash"}, 0xF9: {"ugrave"}, 0xFA: {"uacute"}, 0xFB: {"ucirc"}, 0xFC: {"uuml"},
	0xFD: {"yacute"}, 0xFF: {"yuml"}, 0x20AC: {"euro"},
}

// jsonShort are the one-letter JSON/JS escapes.
var jsonShort = map[rune]string{'"': `\\"`, '\\': `\\\\`, '/': `\\/`, '\n': `\\n`, '\r': `\\r`, '\t': `\\t`, '\b': `\\b`, '\f': `\\f`, '\'': `\\'`}

// hexPat matches n in hex with either case and optional leading zeros
// (minWidth digits at least, as written).
func hexPat(n uint32, width int) string {
	h := fmt.Sprintf("%0*x", width, n)
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'f' {
			b.WriteString("[" + string(c) + string(c-32) + "]")
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// charPattern is the regular expression matching v with each character raw
// or escaped.
func charPattern(v string) string {
	var b strings.Builder
	for _, r := range v {
		if r == utf8.RuneError {
			b.WriteString(regexp.QuoteMeta(string(r)))
			continue
		}
		alts := []string{regexp.QuoteMeta(string(r))}
		// URL: %HH per UTF-8 byte; + for space.
		var enc [4]byte
		n := utf8.EncodeRune(enc[:], r)
		var pct strings.Builder
		for _, c := range enc[:n] {
			pct.WriteString("%" + hexPat(uint32(c), 2))
		}
		alts = append(alts, pct.String())
		if r == ' ' {
			alts = append(alts, `\+`)
		}
		// HTML numeric and named entities.
		alts = append(alts, fmt.Sprintf("&#0*%d;?", r), "&#[xX]0*"+hexPat(uint32(r), 1)+";?")
		for _, name := range entityNames[r] {
			alts = append(alts, "&"+name+";")
		}
		// JSON / JS escapes.
		if s, ok := jsonShort[r]; ok {
			alts = append(alts, s)
		}
		if r < 0x10000 {
			alts = append(alts, `\\u`+hexPat(uint32(r), 4))
		} else {
			rr := r - 0x10000
			hi, lo := 0xD800+(rr>>10), 0xDC00+(rr&0x3FF)
			alts = append(alts, `\\u`+hexPat(uint32(hi), 4)+`\\u`+hexPat(uint32(lo), 4), `\\u\{0*`+hexPat(uint32(r), 1)+`\}`)
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return b.String()
}

// maskJSON walks any JSON document and masks every string, object key and
// number whose text holds a value.
func (m *masker) maskJSON(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v = m.walk(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

func (m *masker) walk(v any) any {
	switch t := v.(type) {
	case string:
		return m.mask(t)
	case json.Number:
		if s := m.mask(string(t)); s != string(t) {
			return s
		}
		return t
	case []any:
		for i := range t {
			t[i] = m.walk(t[i])
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x := t[k]
			mk := m.mask(k)
			if _, clash := out[mk]; clash {
				// Two keys masked to the same text: keep both apart.
				mk = fmt.Sprintf("%s#%d", mk, len(out))
			}
			out[mk] = m.walk(x)
		}
		return out
	}
	return v
}
