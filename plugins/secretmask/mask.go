package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/internal/secretforms"
)

// Mask is what every occurrence of a secret becomes.
const Mask = "••••••"

// masker hides a set of values in any string, raw or encoded.
//
// Per value it matches every character raw or in any of its escaped forms,
// mixed freely (a small backtracking matcher, tried only where the value's
// first byte or an escape introducer %, &, \ or + stands):
//
//   - URL encoding: %HH of each UTF-8 byte (either hex case), + for a space
//   - HTML entities: &#DDD; &#xHH; (leading zeros, optional ;) and the named
//     entities of ASCII punctuation and Latin-1 letters
//   - JSON / JavaScript escapes: \uXXXX (and surrogate pairs), \" \\ \/ \n...
//
// and it searches for base64 (standard and URL alphabets, padded or not) at
// the three alignments a value can take inside a longer base64 string, and
// for hex in upper and lower case.
//
// A value with characters beyond ASCII also takes other byte forms: the
// bytes a form submits in a legacy charset (windows-1252, Shift_JIS, EUC-JP,
// ISO-2022-JP, GBK, Big5, EUC-KR, KOI8...: secretforms.FormCharsets), where
// a character the charset lacks becomes &#NNNN;. Those are matched
// percent-encoded (either hex case, ASCII bytes raw or encoded, + for a
// space, encoded again up to maxURLDepth), in base64 and in hex; and the
// text they read as in windows-1252 or Latin-1 is matched as a value.
type masker struct {
	runes  [][]rune // each value, longest first
	firsts []byte   // the first byte of each value
	// bforms are the values' legacy-charset byte forms, longest first.
	bforms [][]byte
	blobs  []string // base64 cores and hex forms, longest first
	values []string
	// cand marks bytes where an escaped match may start: a value's first
	// byte or an escape introducer.
	cand [256]bool
	// blobPre marks the first two bytes of every blob; blobAt lists the
	// blobs by their first four bytes.
	blobPre [1 << 16 / 8]byte
	blobAt  map[uint32][]string
}

func newMasker(values []string) *masker {
	m := &masker{}
	vs, bforms, extraBlobs := formsOf(values)
	m.setByteForms(bforms)
	m.setValues(vs)
	m.setBlobs(vs, extraBlobs)
	for _, c := range []byte{'%', '&', '\\', '+'} {
		m.cand[c] = true
	}
	return m
}

// formsOf lists, each once, the text forms of values (the values and
// their misdecodings), their byte forms in legacy charsets, and the
// encoded (binaryForms) forms of the byte forms long enough to have them.
func formsOf(values []string) (vs []string, bforms [][]byte, extraBlobs []string) {
	seen := map[string]bool{}
	add := func(v string) {
		if v == "" || seen[v] {
			return
		}
		seen[v] = true
		vs = append(vs, v)
	}
	bseen := map[string]bool{}
	for _, v := range values {
		add(v)
		for _, b := range secretforms.Charsets(v) {
			if !bseen[string(b)] {
				bseen[string(b)] = true
				bforms = append(bforms, b)
				if len(b) >= minEncodedLen {
					extraBlobs = append(extraBlobs, binaryForms(string(b))...)
				}
			}
		}
		for _, mis := range secretforms.Misdecoded(v) {
			add(mis)
		}
	}
	return vs, bforms, extraBlobs
}

// setByteForms keeps the byte forms, longest first, and marks their ASCII
// first bytes as candidates.
func (m *masker) setByteForms(bforms [][]byte) {
	m.bforms = bforms
	sort.Slice(m.bforms, func(i, j int) bool { return len(m.bforms[i]) > len(m.bforms[j]) })
	for _, b := range m.bforms {
		if b[0] < 0x80 {
			m.cand[b[0]] = true
		}
	}
}

// setValues keeps the text forms, longer values first, so a value
// containing another is hidden whole, and marks their first bytes.
func (m *masker) setValues(vs []string) {
	sort.Slice(vs, func(i, j int) bool {
		if len(vs[i]) != len(vs[j]) {
			return len(vs[i]) > len(vs[j])
		}
		return vs[i] < vs[j]
	})
	m.values = vs
	for _, v := range vs {
		m.runes = append(m.runes, []rune(v))
		m.firsts = append(m.firsts, v[0])
		m.cand[v[0]] = true
	}
}

// setBlobs keeps, each once and longest first, the encoded forms of the
// text forms long enough to have them and extraBlobs, indexed by their
// first two and first four bytes.
func (m *masker) setBlobs(vs, extraBlobs []string) {
	blobSeen := map[string]bool{}
	var all []string
	for _, v := range vs {
		if len(v) >= minEncodedLen {
			all = append(all, binaryForms(v)...)
		}
	}
	for _, b := range append(all, extraBlobs...) {
		if !blobSeen[b] {
			blobSeen[b] = true
			m.blobs = append(m.blobs, b)
		}
	}
	sort.Slice(m.blobs, func(i, j int) bool {
		if len(m.blobs[i]) != len(m.blobs[j]) {
			return len(m.blobs[i]) > len(m.blobs[j])
		}
		return m.blobs[i] < m.blobs[j]
	})
	m.blobAt = map[uint32][]string{}
	for _, b := range m.blobs {
		k2 := uint32(b[0])<<8 | uint32(b[1])
		m.blobPre[k2/8] |= 1 << (k2 % 8)
		k4 := k2<<16 | uint32(b[2])<<8 | uint32(b[3])
		m.blobAt[k4] = append(m.blobAt[k4], b)
	}
}

// minEncodedLen: values shorter than this are masked raw and escaped, but
// not as base64 or hex, whose fragments would then be a handful of
// characters found by chance in any base64 blob.
const minEncodedLen = 4

// mask returns s with every occurrence hidden, in one pass: at each
// position the longest match wins, of any value in any escaped form or of
// any base64/hex blob.
func (m *masker) mask(s string) string {
	var out strings.Builder
	last := 0
	for p := 0; p < len(s); {
		c := s[p]
		start, end := p, 0
		if m.cand[c] {
			intro := c == '%' || c == '&' || c == '\\' || c == '+'
			for i, v := range m.runes {
				if m.firsts[i] != c && !intro {
					continue
				}
				if e, ok := matchAt(s, p, v); ok && e > end {
					end = e
				}
			}
			for _, b := range m.bforms {
				if b[0] != c && !intro {
					continue
				}
				if e, ok := matchBytesAt(s, p, b); ok && e > end {
					end = e
				}
			}
		}
		if p+4 <= len(s) {
			k2 := uint32(c)<<8 | uint32(s[p+1])
			if m.blobPre[k2/8]&(1<<(k2%8)) != 0 {
				k4 := k2<<16 | uint32(s[p+2])<<8 | uint32(s[p+3])
				for _, b := range m.blobAt[k4] {
					if !strings.HasPrefix(s[p:], b) {
						continue
					}
					// The characters next to a base64 fragment carry some
					// of the value's bits: they go too.
					e := p + len(b)
					if e < len(s) && isB64(s[e]) {
						e++
					}
					for e < len(s) && s[e] == '=' {
						e++
					}
					if e > end {
						end = e
						if p > last && isB64(s[p-1]) {
							start = p - 1
						}
					}
					break // blobs with one prefix are longest first
				}
			}
		}
		if end == 0 {
			p++
			continue
		}
		out.WriteString(s[last:start])
		out.WriteString(Mask)
		last, p = end, end
	}
	if last == 0 {
		return s
	}
	out.WriteString(s[last:])
	return out.String()
}

// matchAt reports whether v starts at s[p], each character raw or in one of
// its escaped forms, and where the match ends. Where a character can be read
// two ways (a literal % or the start of %25), failures are remembered so an
// adversarial page cannot make the search exponential.
func matchAt(s string, p int, v []rune) (int, bool) {
	var failed map[[2]int]bool
	var try func(p, k int) (int, bool)
	try = func(p, k int) (int, bool) {
		if k == len(v) {
			return p, true
		}
		fs := forms(s, p, v[k])
		if len(fs) > 1 && failed == nil {
			failed = map[[2]int]bool{}
		}
		for _, n := range fs {
			key := [2]int{p + n, k + 1}
			if failed != nil && failed[key] {
				continue
			}
			if end, ok := try(p+n, k+1); ok {
				return end, true
			}
			if failed != nil {
				failed[key] = true
			}
		}
		return 0, false
	}
	return try(p, 0)
}

// forms returns the lengths of every way s[p:] can start with r: raw, URL
// percent-encoded (each UTF-8 byte as %HH) or + for a space, an HTML
// numeric or named entity, a JSON/JS escape. Usually one, rarely two.
func forms(s string, p int, r rune) []int {
	var res []int
	if p >= len(s) {
		return nil
	}
	var enc [4]byte
	n := utf8.EncodeRune(enc[:], r)
	if strings.HasPrefix(s[p:], string(enc[:n])) {
		res = append(res, n)
	}
	switch s[p] {
	case '%':
		// Each UTF-8 byte as %HH, or encoded again (and again): the % of
		// %HH itself written as %25, so %2540 for "@" encoded twice. A
		// space may also show as %2B: a + (form encoding) encoded again.
		for depth := 0; depth <= maxURLDepth; depth++ {
			if l, ok := percentForm(s, p, enc[:n], depth); ok {
				res = append(res, l)
			}
			if r == ' ' && depth > 0 {
				if l, ok := percentForm(s, p, []byte{'+'}, depth-1); ok {
					res = append(res, l)
				}
			}
		}
	case '+':
		if r == ' ' {
			res = append(res, 1)
		}
	case '&':
		if l := numericEntity(s[p:], r); l > 0 {
			res = append(res, l)
		}
		for _, name := range entityNames[r] {
			if strings.HasPrefix(s[p+1:], name+";") {
				res = append(res, len(name)+2)
			}
		}
	case '\\':
		if l := jsEscape(s[p:], r); l > 0 {
			res = append(res, l)
		}
	}
	return res
}

// matchBytesAt reports whether the byte form bs starts at s[p], each byte
// URL percent-encoded (either hex case, encoded again up to maxURLDepth
// times), an ASCII byte also raw, a space also as +, and where the match
// ends. A byte beyond ASCII cannot stand raw in a result, whose strings
// are UTF-8.
func matchBytesAt(s string, p int, bs []byte) (int, bool) {
	var failed map[[2]int]bool
	var try func(q, k int) (int, bool)
	try = func(q, k int) (int, bool) {
		if k == len(bs) {
			return q, true
		}
		if q >= len(s) {
			return 0, false
		}
		b := bs[k]
		var ns []int
		if b < 0x80 && s[q] == b {
			ns = append(ns, 1)
		}
		if b == ' ' && s[q] == '+' {
			ns = append(ns, 1)
		}
		if s[q] == '%' {
			for depth := 0; depth <= maxURLDepth; depth++ {
				if l, ok := percentForm(s, q, []byte{b}, depth); ok {
					ns = append(ns, l)
				}
				if b == ' ' && depth > 0 {
					if l, ok := percentForm(s, q, []byte{'+'}, depth-1); ok {
						ns = append(ns, l)
					}
				}
			}
		}
		if len(ns) > 1 && failed == nil {
			failed = map[[2]int]bool{}
		}
		for _, n := range ns {
			key := [2]int{q + n, k + 1}
			if failed != nil && failed[key] {
				continue
			}
			if end, ok := try(q+n, k+1); ok {
				return end, true
			}
			if failed != nil {
				failed[key] = true
			}
		}
		return 0, false
	}
	return try(p, 0)
}

// maxURLDepth is how many extra rounds of URL encoding are recognised
// (%2540 is one extra round of %40).
const maxURLDepth = 3

// percentForm matches bs at s[p:], each byte as "%" + "25"×depth + HH,
// and returns the length matched.
func percentForm(s string, p int, bs []byte, depth int) (int, bool) {
	q := p
	for _, b := range bs {
		if q >= len(s) || s[q] != '%' {
			return 0, false
		}
		q++
		for i := 0; i < depth; i++ {
			if q+2 > len(s) || s[q:q+2] != "25" {
				return 0, false
			}
			q += 2
		}
		if q+2 > len(s) {
			return 0, false
		}
		x, good := hexVal(s[q : q+2])
		if !good || x != uint32(b) {
			return 0, false
		}
		q += 2
	}
	return q - p, true
}

func hexVal(h string) (uint32, bool) {
	var x uint32
	if h == "" {
		return 0, false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			x = x<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			x = x<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			x = x<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
		if x > 0x10FFFF {
			return 0, false
		}
	}
	return x, true
}

// numericEntity matches &#DDD; or &#xHH; (leading zeros, ; optional) for r.
func numericEntity(s string, r rune) int {
	if len(s) < 3 || s[0] != '&' || s[1] != '#' {
		return 0
	}
	i := 2
	hexa := false
	if s[i] == 'x' || s[i] == 'X' {
		hexa = true
		i++
	}
	start := i
	var x uint64
	for i < len(s) {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case hexa && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case hexa && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			goto done
		}
		if hexa {
			x = x*16 + d
		} else {
			x = x*10 + d
		}
		if x > 0x10FFFF {
			return 0
		}
		i++
	}
done:
	if i == start || rune(x) != r {
		return 0
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	return i
}

// jsEscape matches a JSON or JavaScript escape of r at the start of s.
func jsEscape(s string, r rune) int {
	if len(s) < 2 || s[0] != '\\' {
		return 0
	}
	if e, ok := jsonShort[r]; ok && s[1] == e {
		return 2
	}
	if s[1] != 'u' {
		return 0
	}
	if len(s) >= 4 && s[2] == '{' {
		if j := strings.IndexByte(s, '}'); j > 3 && j < 12 {
			if x, ok := hexVal(s[3:j]); ok && rune(x) == r {
				return j + 1
			}
		}
		return 0
	}
	if len(s) < 6 {
		return 0
	}
	x, ok := hexVal(s[2:6])
	if !ok {
		return 0
	}
	if r < 0x10000 {
		if rune(x) == r {
			return 6
		}
		return 0
	}
	rr := r - 0x10000
	if rune(x) != 0xD800+(rr>>10) || len(s) < 12 || s[6] != '\\' || s[7] != 'u' {
		return 0
	}
	if lo, ok := hexVal(s[8:12]); ok && rune(lo) == 0xDC00+(rr&0x3FF) {
		return 12
	}
	return 0
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
var jsonShort = map[rune]byte{'"': '"', '\\': '\\', '/': '/', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f', '\'': '\''}

// maskJSON masks every string, object key and number of a JSON document
// (which must be valid JSON, as json.Marshal writes it). It rewrites only
// the tokens that change and copies the rest, which in the sandbox is much
// cheaper than decoding the document into maps and encoding it again.
func (m *masker) maskJSON(doc []byte) ([]byte, error) {
	out := make([]byte, 0, len(doc)+64)
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '"':
			j, esc := i+1, false
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					esc = true
					j++
				}
				j++
			}
			if j >= len(doc) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			raw := doc[i : j+1]
			var str string
			if esc {
				if err := json.Unmarshal(raw, &str); err != nil {
					return nil, err
				}
			} else {
				str = string(raw[1 : len(raw)-1])
			}
			if ms := m.mask(str); ms != str {
				out = appendString(out, ms)
			} else {
				out = append(out, raw...)
			}
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(doc) && strings.IndexByte("0123456789+-.eE", doc[j]) >= 0 {
				j++
			}
			num := string(doc[i:j])
			if ms := m.mask(num); ms != num {
				out = appendString(out, ms)
			} else {
				out = append(out, num...)
			}
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out, nil
}

func appendString(out []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return append(out, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
