// Go's strconv.Quote and strconv.Unquote, as snapcompact's Go version used
// them: names in the output are quoted byte for byte as Go quotes them
// (printable runes as they are, the rest escaped), and a rendered line's
// quoted name is read back the same way.

use super::isprint::{IS_NOT_PRINT16, IS_NOT_PRINT32, IS_PRINT16, IS_PRINT32};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// is_print is Go's strconv.IsPrint: letters, marks, numbers, punctuation,
/// symbols and the ASCII space.
pub fn is_print(c: char) -> bool {
    let r = c as u32;
    if r <= 0xff {
        return (0x20..=0x7e).contains(&r) || (0xa1..=0xff).contains(&r) && r != 0xad;
    }
    if r < 0x10000 {
        let rr = r as u16;
        let i = IS_PRINT16.partition_point(|&x| x < rr);
        if i >= IS_PRINT16.len() || rr < IS_PRINT16[i & !1] || IS_PRINT16[i | 1] < rr {
            return false;
        }
        let j = IS_NOT_PRINT16.partition_point(|&x| x < rr);
        return j >= IS_NOT_PRINT16.len() || IS_NOT_PRINT16[j] != rr;
    }
    let i = IS_PRINT32.partition_point(|&x| x < r);
    if i >= IS_PRINT32.len() || r < IS_PRINT32[i & !1] || IS_PRINT32[i | 1] < r {
        return false;
    }
    if r >= 0x20000 {
        return true;
    }
    let rr = (r - 0x10000) as u16;
    let j = IS_NOT_PRINT32.partition_point(|&x| x < rr);
    j >= IS_NOT_PRINT32.len() || IS_NOT_PRINT32[j] != rr
}

fn push_hex(out: &mut String, v: u32, digits: u32) {
    for k in (0..digits).rev() {
        out.push(HEX[(v >> (4 * k) & 0xf) as usize] as char);
    }
}

/// quote is Go's strconv.Quote.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_print(c) => out.push(c),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if c < ' ' || c == '\u{7f}' => {
                out.push_str("\\x");
                push_hex(&mut out, c as u32, 2);
            }
            c if (c as u32) < 0x10000 => {
                out.push_str("\\u");
                push_hex(&mut out, c as u32, 4);
            }
            c => {
                out.push_str("\\U");
                push_hex(&mut out, c as u32, 8);
            }
        }
    }
    out.push('"');
    out
}

fn hex_value(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        v = v << 4 | (c as char).to_digit(16)?;
    }
    Some(v)
}

/// unquote_prefix is Go's strconv.QuotedPrefix then strconv.Unquote on a
/// double-quoted string at the start of s: its value as bytes (a \x or
/// octal escape is one byte), or None when it is not a valid Go string.
pub fn unquote_prefix(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => return Some(out),
            b'\n' => return None,
            b'\\' => {
                let e = *b.get(i + 1)?;
                i += 2;
                match e {
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'v' => out.push(11),
                    b'\\' => out.push(b'\\'),
                    b'"' => out.push(b'"'),
                    b'x' | b'u' | b'U' => {
                        let n = match e {
                            b'x' => 2,
                            b'u' => 4,
                            _ => 8,
                        };
                        let v = hex_value(b.get(i..i + n)?)?;
                        i += n;
                        if e == b'x' {
                            out.push(v as u8);
                        } else {
                            let c = char::from_u32(v)?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                    }
                    b'0'..=b'7' => {
                        let d = b.get(i - 1..i + 2)?;
                        let mut v = 0u32;
                        for &x in d {
                            if !(b'0'..=b'7').contains(&x) {
                                return None;
                            }
                            v = v * 8 + (x - b'0') as u32;
                        }
                        if v > 255 {
                            return None;
                        }
                        out.push(v as u8);
                        i += 2;
                    }
                    _ => return None,
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        // Each want is Go's strconv.Quote of the input.
        let cases = [
            ("plain", "\"plain\""),
            ("a\"b\\c", "\"a\\\"b\\\\c\""),
            ("\u{7}\u{8}\u{c}\n\r\t\u{b}\u{1}\u{7f}", "\"\\a\\b\\f\\n\\r\\t\\v\\x01\\x7f\""),
            ("é世界 🎉", "\"é世界 🎉\""),
            ("nb\u{a0}sp soft\u{ad}zw\u{200b}", "\"nb\\u00a0sp soft\\u00adzw\\u200b\""),
            ("\u{2028}\u{feff}\u{e000}", "\"\\u2028\\ufeff\\ue000\""),
            ("\u{10ffff}\u{1f600}\u{e0001}", "\"\\U0010ffff\u{1f600}\\U000e0001\""),
            ("\u{378}", "\"\\u0378\""),
        ];
        for (input, want) in cases {
            assert_eq!(quote(input), want, "quote({:?})", input);
        }
    }

    #[test]
    fn unquotes_what_quote_writes() {
        for s in ["x", "a\"b\\c\n\u{1}\u{7f}", "é\u{a0}\u{200b}\u{1f600}\u{10ffff}"] {
            assert_eq!(unquote_prefix(&(quote(s) + "] tail")).unwrap(), s.as_bytes());
        }
        assert_eq!(unquote_prefix("\"\\xff\\101\"").unwrap(), vec![0xff, b'A']);
        for bad in ["x", "\"open", "\"a\nb\"", "\"\\q\"", "\"\\'\"", "\"\\x4\"", "\"\\ud800\"", "\"\\400\"", "\"\\"] {
            assert_eq!(unquote_prefix(bad), None, "{:?}", bad);
        }
    }
}
