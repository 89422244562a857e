package browser

import (
	"fmt"
	"strings"
)

// How Playwright writes a text value into its YAML snapshot
// (yamlEscapeValueIfNeeded in its isomorphic/yaml.ts), so that a line the
// watcher patches (setValue) reads exactly as a new snapshot's would: as
// is, unless YAML could read it as something else; then in double quotes,
// with backslash escapes.

// yamlValue is s as Playwright renders a value.
func yamlValue(s string) string {
	if !yamlNeedsQuotes(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r <= 0x1f || r >= 0x7f && r <= 0x9f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlNeedsQuotes is Playwright's yamlStringNeedsQuotes, test by test.
func yamlNeedsQuotes(s string) bool {
	if s == "" {
		return true
	}
	rs := []rune(s)
	if jsSpace(rs[0]) || jsSpace(rs[len(rs)-1]) {
		return true
	}
	for i, r := range rs {
		switch {
		case r <= 0x08 || r == 0x0b || r == 0x0c || r >= 0x0e && r <= 0x1f || r >= 0x7f && r <= 0x9f:
			return true
		case r == '\n' || r == '\r':
			return true
		case r == '{' || r == '}' || r == '`':
			return true
		case r == ':' && (i+1 == len(rs) || jsSpace(rs[i+1])):
			return true
		case jsSpace(r) && i+1 < len(rs) && rs[i+1] == '#':
			return true
		}
	}
	if strings.ContainsRune(`-&*],?!>|@"'#%[`, rs[0]) {
		return true
	}
	if jsNumeric(s) {
		return true
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "true", "false", "on", "off", "null":
		return true
	}
	return false
}

// jsSpace is JavaScript's \s: white space and line terminators.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsNumeric reports whether JavaScript's Number(s) is a number (not NaN):
// s trimmed of white space is empty, a decimal literal (signed, with an
// optional fraction and exponent, or Infinity), or a 0x, 0o or 0b integer.
func jsNumeric(s string) bool {
	s = strings.TrimFunc(s, jsSpace)
	if s == "" {
		return true
	}
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			return allOf(s[2:], "0123456789abcdefABCDEF")
		case 'o', 'O':
			return allOf(s[2:], "01234567")
		case 'b', 'B':
			return allOf(s[2:], "01")
		}
	}
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if s == "Infinity" {
		return true
	}
	i := 0
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// allOf: s is not empty and every byte of it is in set.
func allOf(s, set string) bool {
	return s != "" && strings.Trim(s, set) == ""
}
