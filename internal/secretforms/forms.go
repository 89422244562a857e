// Package secretforms lists the forms a secret value takes on its way out
// of a browser other than its UTF-8 text: the bytes a form submits it as in
// a legacy charset, and the text those bytes become when something decodes
// them with the wrong single-byte charset.
//
// It is shared by the secret masker plugin (which matches the byte forms
// raw, percent-encoded, in base64 and in hex in every result) and by the
// host's capture masking (which matches visible page text). It compiles
// for the host and for GOOS=wasip1.
package secretforms

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// FormCharsets are the encodings of the HTML standard a form can submit in
// (accept-charset or the page's own encoding), by their WHATWG names,
// followed by UTF-16 (a form in a UTF-16 page submits UTF-8, but script on
// such pages and some APIs carry UTF-16 bytes). utf-8 itself, replacement
// and x-user-defined are left out: the first is the value's own form, the
// others cannot carry a value.
var FormCharsets = []string{
	"windows-1252", "iso-8859-2", "iso-8859-3", "iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7",
	"iso-8859-8", "iso-8859-10", "iso-8859-13", "iso-8859-14", "iso-8859-15", "iso-8859-16",
	"windows-874", "windows-1250", "windows-1251", "windows-1253", "windows-1254", "windows-1255",
	"windows-1256", "windows-1257", "windows-1258", "ibm866", "koi8-r", "koi8-u", "macintosh", "x-mac-cyrillic",
	"shift_jis", "euc-jp", "iso-2022-jp", "gbk", "gb18030", "big5", "euc-kr",
	"utf-16le", "utf-16be",
}

// ChineseGBKEuro: the HTML standard's GBK encoder writes € as the single
// byte 0x80; x/text's GBK encoder does the same, so nothing extra is
// needed for it.

// Charsets returns the distinct byte forms of v in FormCharsets, each as a
// browser submits it: characters the charset cannot encode become the
// decimal numeric reference &#NNNN; (the HTML standard's "html" error
// mode). Forms equal to v's UTF-8 bytes are left out, so an ASCII value
// gets only its UTF-16 forms.
func Charsets(v string) [][]byte {
	if v == "" || !utf8.ValidString(v) {
		return nil
	}
	seen := map[string]bool{v: true}
	var out [][]byte
	for _, name := range FormCharsets {
		b, ok := Encode(name, v)
		if !ok || seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		out = append(out, b)
	}
	return out
}

// Encode returns v in the named WHATWG encoding the way a form submits it
// (unencodable characters as &#NNNN;).
func Encode(name, v string) ([]byte, bool) {
	enc, err := htmlindex.Get(name)
	if err != nil {
		return nil, false
	}
	// A stateful encoder (ISO-2022-JP) must see the whole value, so the
	// numeric references are spliced in by HTMLEscapeUnsupported rather
	// than by encoding each character alone.
	if name == "euc-jp" {
		return eucJP(enc, v)
	}
	b, err := encoding.HTMLEscapeUnsupported(enc.NewEncoder()).Bytes([]byte(v))
	if err != nil {
		return nil, false
	}
	return b, true
}

// eucJP follows the HTML standard's EUC-JP encoder, which writes only JIS X
// 0208 (and half-width katakana): x/text also writes JIS X 0212 (0x8F and
// two bytes), which a browser submits as &#NNNN; instead. EUC-JP has no
// state, so each character is encoded alone.
func eucJP(enc encoding.Encoding, v string) ([]byte, bool) {
	var out []byte
	e := enc.NewEncoder()
	for _, r := range v {
		b, err := e.Bytes([]byte(string(r)))
		if err != nil || len(b) == 3 && b[0] == 0x8F {
			out = append(out, "&#"...)
			out = append(out, strconv.Itoa(int(r))...)
			out = append(out, ';')
			continue
		}
		out = append(out, b...)
	}
	return out, true
}

// Misdecoded returns the text v's byte forms (UTF-8 and every charset form)
// turn into when decoded as windows-1252 or ISO-8859-1, the usual mistake
// of a server or a log reading bytes in the wrong charset ("Ã¼" for "ü").
// Empty for an ASCII value, whose bytes read the same in every one of them.
func Misdecoded(v string) []string {
	ascii := true
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return nil
	}
	seen := map[string]bool{v: true}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	forms := append([][]byte{[]byte(v)}, Charsets(v)...)
	for _, f := range forms {
		if bytes.IndexByte(f, 0) >= 0 {
			continue // UTF-16: NULs, not text anyone reads
		}
		if s, err := charmap.Windows1252.NewDecoder().Bytes(f); err == nil {
			add(string(s))
		}
		rs := make([]rune, len(f))
		for i, c := range f {
			rs[i] = rune(c)
		}
		add(string(rs))
	}
	return out
}
