// Byte-string helpers that behave as Go's strings, unicode/utf8, strconv
// and html packages do. The detector's verdicts, markers and messages
// must be the ones the Go detector gave (same page, same answer), and a
// page is bytes, not always valid UTF-8: every helper here works on bytes
// and reads an invalid byte as Go does, one U+FFFD of width 1.

use crate::entity_table::ENTITIES;

pub const RUNE_ERROR: u32 = 0xFFFD;

/// The rune at the start of s and its width, as utf8.DecodeRune: an
/// invalid or short sequence is (U+FFFD, 1); an empty s is (U+FFFD, 0).
pub fn decode_rune(s: &[u8]) -> (u32, usize) {
    let n = s.len();
    if n == 0 {
        return (RUNE_ERROR, 0);
    }
    let c0 = s[0];
    if c0 < 0x80 {
        return (c0 as u32, 1);
    }
    // The accepted ranges of the second byte, per leading byte (RFC 3629):
    // no overlong forms, no surrogates, nothing past U+10FFFF.
    let (need, lo, hi) = match c0 {
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return (RUNE_ERROR, 1),
    };
    if n < 2 || s[1] < lo || s[1] > hi {
        return (RUNE_ERROR, 1);
    }
    if need == 2 {
        return (((c0 as u32 & 0x1F) << 6) | (s[1] as u32 & 0x3F), 2);
    }
    if n < 3 || s[2] & 0xC0 != 0x80 {
        return (RUNE_ERROR, 1);
    }
    if need == 3 {
        return (((c0 as u32 & 0x0F) << 12) | ((s[1] as u32 & 0x3F) << 6) | (s[2] as u32 & 0x3F), 3);
    }
    if n < 4 || s[3] & 0xC0 != 0x80 {
        return (RUNE_ERROR, 1);
    }
    let r = ((c0 as u32 & 0x07) << 18) | ((s[1] as u32 & 0x3F) << 12) | ((s[2] as u32 & 0x3F) << 6) | (s[3] as u32 & 0x3F);
    (r, 4)
}

/// Appends r in UTF-8 (an invalid rune as U+FFFD), as utf8.EncodeRune.
pub fn push_rune(out: &mut Vec<u8>, r: u32) {
    let c = char::from_u32(r).unwrap_or('\u{FFFD}');
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// unicode.IsSpace: the White_Space property.
pub fn is_unicode_space(r: u32) -> bool {
    match r {
        0x09..=0x0D | 0x20 | 0x85 | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000 => true,
        _ => false,
    }
}

/// The words of s joined by single spaces: strings.Join(strings.Fields(s), " ").
pub fn collapse(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    let mut pending = false;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        if is_unicode_space(r) {
            pending = !out.is_empty();
        } else {
            if pending {
                out.push(b' ');
                pending = false;
            }
            out.extend_from_slice(&s[i..i + w]);
        }
        i += w;
    }
    out
}

/// The rune that ends s and its width, as utf8.DecodeLastRune.
pub fn decode_last_rune(s: &[u8]) -> (u32, usize) {
    let end = s.len();
    if end == 0 {
        return (RUNE_ERROR, 0);
    }
    if s[end - 1] < 0x80 {
        return (s[end - 1] as u32, 1);
    }
    // back to the rune's start: at most 4 bytes, stopping at a byte that
    // is not a continuation byte
    let lim = end.saturating_sub(4);
    let mut start = end - 1;
    while start > lim && s[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    let (r, w) = decode_rune(&s[start..end]);
    if start + w != end {
        return (RUNE_ERROR, 1);
    }
    (r, w)
}

/// strings.TrimSpace: from both ends, never reading the middle (a
/// rendered text may be megabytes).
pub fn trim_space(s: &[u8]) -> &[u8] {
    let mut a = 0;
    while a < s.len() {
        let (r, w) = decode_rune(&s[a..]);
        if !is_unicode_space(r) {
            break;
        }
        a += w;
    }
    let mut e = s.len();
    while e > a {
        let (r, w) = decode_last_rune(&s[a..e]);
        if !is_unicode_space(r) {
            break;
        }
        e -= w;
    }
    &s[a..e]
}

pub fn lower_byte(c: u8) -> u8 {
    if c.is_ascii_uppercase() {
        c + 32
    } else {
        c
    }
}

/// ASCII letters lower-cased, every other byte kept (offsets stay valid).
pub fn ascii_lower(s: &[u8]) -> Vec<u8> {
    s.iter().map(|&c| lower_byte(c)).collect()
}

/// Whether s starts with lower (lower-case ASCII), ignoring ASCII case.
pub fn has_prefix_fold(s: &[u8], lower: &[u8]) -> bool {
    s.len() >= lower.len() && s.iter().zip(lower).all(|(&a, &b)| lower_byte(a) == b)
}

/// strings.ToLower (Unicode), for header values.
pub fn to_lower(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        i += w;
        if r < 0x80 {
            out.push(lower_byte(r as u8));
            continue;
        }
        // Go maps one rune to one rune: U+0130 to 'i', where Rust's full
        // mapping adds a combining dot.
        let c = char::from_u32(r).unwrap_or('\u{FFFD}');
        let l = if r == 0x130 { 'i' } else { c.to_lowercase().next().unwrap_or(c) };
        push_rune(&mut out, l as u32);
    }
    out
}

/// strings.EqualFold(s, t) for an ASCII t: besides ASCII case, Unicode's
/// simple folding maps two runes onto ASCII letters (K, the Kelvin sign,
/// and s, the long s).
pub fn equal_fold_ascii(s: &[u8], t: &[u8]) -> bool {
    let mut i = 0;
    for &tc in t {
        if i >= s.len() {
            return false;
        }
        let (r, w) = decode_rune(&s[i..]);
        i += w;
        let tl = lower_byte(tc) as u32;
        let ok = if r < 0x80 {
            lower_byte(r as u8) as u32 == tl
        } else {
            (r == 0x212A && tl == b'k' as u32) || (r == 0x17F && tl == b's' as u32)
        };
        if !ok {
            return false;
        }
    }
    i == s.len()
}

/// Whether strconv.Quote writes r as itself: printable per strconv.IsPrint
/// for the runes a title can hold. Controls, format characters (soft
/// hyphen, zero-width and direction marks, the byte-order mark), private
/// use and non-characters are escaped.
fn quote_printable(r: u32) -> bool {
    !(r < 0x20
        || (0x7F..=0x9F).contains(&r)
        || r == 0xAD
        || (0x600..=0x605).contains(&r)
        || r == 0x61C
        || r == 0x6DD
        || r == 0x70F
        || r == 0x180E
        || (0x200B..=0x200F).contains(&r)
        || (0x2028..=0x202E).contains(&r)
        || (0x2060..=0x206F).contains(&r)
        || (0xD800..=0xF8FF).contains(&r)
        || (0xFDD0..=0xFDEF).contains(&r)
        || r == 0xFEFF
        || (0xFFF0..=0xFFFB).contains(&r)
        || r & 0xFFFE == 0xFFFE
        || (0xE0000..=0xE0FFF).contains(&r)
        || r >= 0xF0000)
}

/// strconv.Quote: a double-quoted Go string literal.
pub fn quote(s: &[u8]) -> Vec<u8> {
    const HEX: &[u8] = b"0123456789abcdef";
    let mut out = vec![b'"'];
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        if w == 1 && r == RUNE_ERROR {
            out.extend_from_slice(b"\\x");
            out.push(HEX[(s[i] >> 4) as usize]);
            out.push(HEX[(s[i] & 15) as usize]);
            i += 1;
            continue;
        }
        i += w;
        match r {
            0x22 => out.extend_from_slice(b"\\\""),
            0x5C => out.extend_from_slice(b"\\\\"),
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            0x0A => out.extend_from_slice(b"\\n"),
            0x0D => out.extend_from_slice(b"\\r"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0B => out.extend_from_slice(b"\\v"),
            _ if quote_printable(r) => push_rune(&mut out, r),
            _ if r < 0x20 || r == 0x7F => {
                out.extend_from_slice(b"\\x");
                out.push(HEX[(r >> 4) as usize]);
                out.push(HEX[(r & 15) as usize]);
            }
            _ => {
                let (esc, digits) = if r < 0x10000 { (b"\\u", 4) } else { (b"\\U", 8) };
                out.extend_from_slice(esc);
                for k in (0..digits).rev() {
                    out.push(HEX[((r >> (4 * k)) & 15) as usize]);
                }
            }
        }
    }
    out.push(b'"');
    out
}

/// s with each invalid byte as U+FFFD, as Go's []rune conversion and its
/// JSON encoder read it.
pub fn lossy(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        if w == 1 && r == RUNE_ERROR {
            push_rune(&mut out, RUNE_ERROR);
        } else {
            out.extend_from_slice(&s[i..i + w]);
        }
        i += w;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The index of the first c in h. Eight bytes a step (a word compared at
/// once): under the sandbox every loop iteration is charged fuel, and the
/// document's scans for '<' and for a needle's first byte are most of
/// the detector's work on a large page.
pub fn find_byte(h: &[u8], c: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let pat = LO.wrapping_mul(c as u64);
    let mut i = 0;
    while i + 8 <= h.len() {
        let w = u64::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3], h[i + 4], h[i + 5], h[i + 6], h[i + 7]]) ^ pat;
        // a zero byte in w is a c in h (the exact test: no false hits)
        if (w.wrapping_sub(LO) & !w & HI) != 0 {
            break;
        }
        i += 8;
    }
    h[i..].iter().position(|&x| x == c).map(|k| i + k)
}

/// The index of the first occurrence of needle in h, as strings.Index.
pub fn index(h: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.len() > h.len() {
        return None;
    }
    let first = needle[0];
    let last = h.len() - needle.len();
    let mut i = 0;
    while i <= last {
        match find_byte(&h[i..=last], first) {
            None => return None,
            Some(k) => i += k,
        }
        if &h[i..i + needle.len()] == needle {
            return Some(i);
        }
        i += 1;
    }
    None
}

pub fn contains(h: &[u8], needle: &[u8]) -> bool {
    index(h, needle).is_some()
}

/// html.UnescapeString: named and numeric character references decoded
/// with the same rules (longest prefix for names without ';', the
/// Windows-1252 table for 0x80-0x9F, U+FFFD for invalid code points).
pub fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut src = 0;
    while src < s.len() {
        match find_byte(&s[src..], b'&') {
            None => {
                out.extend_from_slice(&s[src..]);
                break;
            }
            Some(k) => {
                out.extend_from_slice(&s[src..src + k]);
                src += k;
                src += unescape_entity(&s[src..], &mut out);
            }
        }
    }
    out
}

const REPLACEMENT: [u32; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018,
    0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

fn entity(name: &[u8]) -> Option<(u32, u32)> {
    ENTITIES.binary_search_by(|e| e.0.as_bytes().cmp(name)).ok().map(|k| (ENTITIES[k].1, ENTITIES[k].2))
}

fn push_entity(out: &mut Vec<u8>, v: (u32, u32)) {
    push_rune(out, v.0);
    if v.1 != 0 {
        push_rune(out, v.1);
    }
}

/// Decodes the numeric reference at the start of s ("&#..."), as
/// html.UnescapeString does.
fn unescape_numeric(s: &[u8], out: &mut Vec<u8>) -> usize {
    let mut i = 1;
    if s.len() <= 3 {
        out.push(s[0]);
        return 1;
    }
    i += 1;
    let mut c = s[i];
    let mut hex = false;
    if c == b'x' || c == b'X' {
        hex = true;
        i += 1;
    }
    // A Go rune is an int32: long numbers wrap as they do there.
    let mut x: i32 = 0;
    while i < s.len() {
        c = s[i];
        i += 1;
        if hex {
            let d = match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                b'A'..=b'F' => Some(c - b'A' + 10),
                _ => None,
            };
            if let Some(d) = d {
                x = x.wrapping_mul(16).wrapping_add(d as i32);
                continue;
            }
        } else if c.is_ascii_digit() {
            x = x.wrapping_mul(10).wrapping_add((c - b'0') as i32);
            continue;
        }
        if c != b';' {
            i -= 1;
        }
        break;
    }
    if i <= 3 {
        out.push(s[0]);
        return 1;
    }
    let r = if (0x80..=0x9F).contains(&x) {
        REPLACEMENT[(x - 0x80) as usize]
    } else if x <= 0 || (0xD800..=0xDFFF).contains(&x) || x > 0x10FFFF {
        RUNE_ERROR
    } else {
        x as u32
    };
    push_rune(out, r);
    i
}

/// Decodes the reference at the start of s (s[0] == '&') into out and
/// returns how many bytes of s it used (a lone '&' is copied).
fn unescape_entity(s: &[u8], out: &mut Vec<u8>) -> usize {
    let mut i = 1;
    if s.len() <= 1 {
        out.push(s[0]);
        return 1;
    }
    if s[i] == b'#' {
        return unescape_numeric(s, out);
    }
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c.is_ascii_alphanumeric() {
            continue;
        }
        if c != b';' {
            i -= 1;
        }
        break;
    }
    let name = &s[1..i];
    if name.is_empty() {
        // nothing decoded
    } else if let Some(v) = entity(name) {
        push_entity(out, v);
        return i;
    } else {
        let max = (name.len() - 1).min(6);
        let mut j = max;
        while j > 1 {
            if let Some(v) = entity(&name[..j]) {
                if v.1 == 0 {
                    push_rune(out, v.0);
                    return j + 1;
                }
            }
            j -= 1;
        }
    }
    out.extend_from_slice(&s[..i]);
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_like_go() {
        for (i, o) in [
            ("a &amp; b", "a & b"),
            ("&lt;&gt", "<>"),
            ("&ampfoo;", "&foo;"),
            ("&#47;&#x2F;&#X2f;", "///"),
            ("&#5a", "&#5a"),
            ("&#55a", "7a"),
            ("&#0;", "\u{FFFD}"),
            ("&#x80;", "\u{20AC}"),
            ("&#xFFFFFF;", "\u{FFFD}"),
            ("&NotEqualTilde;", "\u{2242}\u{338}"),
            ("&unknown; &", "&unknown; &"),
            ("&#;", "&#;"),
            ("&#x;", "\u{FFFD}"),
            ("&", "&"),
        ] {
            assert_eq!(String::from_utf8(unescape(i.as_bytes())).unwrap(), o, "{}", i);
        }
    }

    #[test]
    fn finds_bytes_and_needles() {
        let h = b"0123456789abcdef<ghijklmnop<";
        for k in 0..h.len() {
            assert_eq!(find_byte(&h[k..], b'<'), h[k..].iter().position(|&c| c == b'<'));
        }
        assert_eq!(find_byte(b"\x80\x81\x7f\x01\x00\xff\xfe\xfd\x3c", b'<'), Some(8));
        assert_eq!(find_byte(b"\x3d\x3b\x3d\x3b\x3d\x3b\x3d\x3b", b'<'), None);
        assert_eq!(index(b"a-->b--->", b"--->"), Some(5));
        assert_eq!(index(b"abc", b"abcd"), None);
    }

    #[test]
    fn fields_trim_fold_quote() {
        assert_eq!(collapse(b"  a \t b\xc2\xa0c  "), b"a b c");
        assert_eq!(collapse(b"x\xe2\x80\x83y"), b"x y");
        assert_eq!(trim_space(b" \n ab c \xe3\x80\x80"), b"ab c");
        assert_eq!(trim_space(b"\xe3\x80 x \x80\x80\x80\x80\x80 "), b"\xe3\x80 x \x80\x80\x80\x80\x80");
        assert_eq!(trim_space("\u{a0}\u{2003}".as_bytes()), b"");
        assert_eq!(decode_last_rune("aé".as_bytes()), (0xE9, 2));
        assert_eq!(decode_last_rune(b"a\xa9"), (RUNE_ERROR, 1));
        assert!(equal_fold_ascii("JUST A MOMENT...".as_bytes(), b"Just a moment..."));
        assert!(equal_fold_ascii("Robot Chec\u{212A}".as_bytes(), b"Robot Check"));
        assert!(!equal_fold_ascii(b"Robot Checks", b"Robot Check"));
        assert_eq!(quote("a\"b\\\u{200B}é\x01".as_bytes()), b"\"a\\\"b\\\\\\u200b\xc3\xa9\\x01\"".to_vec());
        assert_eq!(quote(b"\xff"), b"\"\\xff\"".to_vec());
        assert_eq!(lossy(b"a\xe2\x82b"), "a\u{FFFD}\u{FFFD}b");
        assert_eq!(to_lower("HIT FROM CLOUDFRONT \u{130}".as_bytes()), b"hit from cloudfront i");
    }
}
