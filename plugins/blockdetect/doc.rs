// One pass over a document: its title, visible text, how much it holds,
// and where the markup a rule may search lies.

use crate::gostr::{ascii_lower, collapse, contains, decode_rune, find_byte, has_prefix_fold, index, is_unicode_space, lower_byte, unescape};

// How much a page may hold and still be a wall. Walls say one thing and
// link to little (the 24 walls of the shared corpus: at most 917 visible
// runes once hidden elements are left out, and 4 links; a multilingual
// branded error page, 2,860 runes); a page past either is a page of its
// own, whatever scripts it loads.
// It is the host's abi.LongTextRunes: the detector asks for
// FEATURE_LONG_TEXT_PAGE, so past it the host sends no HTML.
pub const WALL_MAX_TEXT: usize = crate::sdk::abi::LONG_TEXT_RUNES; // visible runes
pub const WALL_MAX_LINKS: usize = 20; // <a href> elements
/// A stub shows at most a line ("Please enable JS and disable any ad
/// blocker"): below this many visible runes, a page whose only other
/// content is a vendor's script is that vendor's challenge.
pub const STUB_MAX_TEXT: usize = 80;

/// A part of the document, doc[lo..hi].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub lo: usize,
    pub hi: usize,
}

/// What one pass over a document finds. Spans, not copies: a document may
/// be megabytes of markup.
#[derive(Default, Debug)]
pub struct DocFacts {
    pub title: Vec<u8>,
    /// visible text, whitespace collapsed, up to WALL_MAX_TEXT+1 runes
    pub text: Vec<u8>,
    /// visible runes, counted up to where reading stopped
    pub text_runes: usize,
    pub links: usize,
    /// inputs a person types into or picks from
    pub fields: usize,
    pub srcs: usize,
    pub sheets: usize,
    /// start tags shown: scripts and hidden elements left out
    pub elements: usize,
    /// the tags outside scripts, and iframe fallback content
    pub built: Vec<Span>,
    /// inline scripts, and the start tags of scripts (src, id)
    pub script: Vec<Span>,
    /// set when the page holds more than any wall: reading stopped there
    pub rich: bool,
}

/// The elements whose content is text, not markup; skipped whole (script
/// content goes to the script spans, iframe fallback to the built ones).
fn raw_text(name: &[u8]) -> bool {
    matches!(name, b"script" | b"style" | b"noscript" | b"template" | b"iframe" | b"xmp" | b"noembed" | b"noframes" | b"title")
}

/// The elements that never have content, so hiding one hides nothing
/// after it.
fn void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area" | b"base" | b"br" | b"col" | b"embed" | b"hr" | b"img" | b"input" | b"link" | b"meta" | b"source" | b"track" | b"wbr"
    )
}

/// Reads doc once, front to back, and stops as soon as the page is rich:
/// cost is at most linear in the document. With with_text false the
/// visible text is not collected (the host gave the rendered text).
pub fn read_doc(doc: &[u8], with_text: bool) -> DocFacts {
    let mut r = Reader { f: DocFacts::default(), doc, with_text, i: 0, hidden: Vec::new(), depth: 0 };
    while r.i < doc.len() {
        if r.f.links > WALL_MAX_LINKS || r.f.text_runes > WALL_MAX_TEXT {
            r.f.rich = true;
            return r.f;
        }
        let j = find_byte(&doc[r.i..], b'<').unwrap_or(doc.len() - r.i);
        if j > 0 {
            if with_text && r.hidden.is_empty() {
                add_text(&mut r.f, &doc[r.i..r.i + j]);
            }
            r.i += j;
            continue;
        }
        if !r.markup() {
            return r.f;
        }
    }
    r.f
}

/// read_doc's walk: where it is, and the element that hides what it holds
/// (display:none, hidden) with its nesting.
struct Reader<'a> {
    f: DocFacts,
    doc: &'a [u8],
    with_text: bool,
    i: usize,
    hidden: Vec<u8>,
    depth: usize,
}

impl<'a> Reader<'a> {
    /// Reads what starts at doc[i..], which begins with '<'. False when the
    /// document ends inside a comment.
    fn markup(&mut self) -> bool {
        let doc = self.doc;
        let rest = &doc[self.i..];
        if rest.starts_with(b"<!--") {
            match index(&rest[4..], b"-->") {
                None => return false,
                Some(e) => self.i += 4 + e + 3,
            }
        } else if rest.len() > 1 && (rest[1] == b'!' || rest[1] == b'?') {
            self.i += tag_end(rest).0;
        } else if rest.len() > 1 && rest[1] == b'/' {
            let n = tag_end(rest).0;
            if !self.hidden.is_empty() && self.hidden.eq_ignore_ascii_case(tag_name(&rest[2..n])) {
                self.depth -= 1;
                if self.depth == 0 {
                    self.hidden.clear();
                }
            }
            // End tags carry no marker; kept in the built spans, they join
            // a run of markup into one span.
            add_span(doc, &mut self.f.built, self.i, self.i + n);
            self.i += n;
        } else if rest.len() < 2 || !rest[1].is_ascii_alphabetic() {
            if self.with_text && self.hidden.is_empty() {
                add_text(&mut self.f, b"<");
            }
            self.i += 1;
        } else {
            self.start_tag();
        }
        true
    }

    /// Reads the start tag at i and, for a script or an element of raw
    /// text (title, iframe...), its content.
    fn start_tag(&mut self) {
        let doc = self.doc;
        let rest = &doc[self.i..];
        let (n, maybe) = tag_end(rest);
        let tag = &rest[..n];
        let raw = tag_name(&tag[1..]);
        // The name lower-cased without an allocation per tag: every name a
        // rule tells apart is short; a longer one is compared raw.
        let mut small = [0u8; 12];
        let name: &[u8] = if raw.len() <= small.len() {
            for (d, &c) in small.iter_mut().zip(raw) {
                *d = lower_byte(c);
            }
            &small[..raw.len()]
        } else {
            raw
        };
        self.i += n;
        let f = &mut self.f;
        if name == b"script" {
            if !attr_value(tag, b"src").is_empty() {
                f.srcs += 1;
            }
            let (end, close_at) = closing(doc, self.i, b"</script");
            add_span(doc, &mut f.script, self.i - n, close_at);
            self.i = end;
            return;
        }
        // What a hidden element holds is not what the page shows: padding a
        // challenge page with hidden markup does not make it rich.
        let hiding = maybe && hides(tag);
        if self.hidden.is_empty() && !hiding {
            f.elements += 1;
        }
        add_span(doc, &mut f.built, self.i - n, self.i);
        count_element(f, name, tag);
        if raw_text(name) {
            let mut prefix = b"</".to_vec();
            prefix.extend_from_slice(name);
            let (end, close_at) = closing(doc, self.i, &prefix);
            if name == b"title" {
                if f.title.is_empty() {
                    f.title = collapse(&unescape(&doc[self.i..close_at]));
                }
            } else if name == b"iframe" {
                add_span(doc, &mut f.built, self.i, close_at);
            }
            self.i = end;
            return;
        }
        if void(name) || tag.ends_with(b"/>") {
            return;
        }
        if !self.hidden.is_empty() && self.hidden.eq_ignore_ascii_case(raw) {
            self.depth += 1;
        } else if self.hidden.is_empty() && hiding {
            self.hidden = ascii_lower(raw);
            self.depth = 1;
        }
    }
}

/// What element name (its start tag tag) adds to how much the page holds.
fn count_element(f: &mut DocFacts, name: &[u8], tag: &[u8]) {
    match name {
        b"a" => {
            if !attr_value(tag, b"href").is_empty() {
                f.links += 1;
            }
        }
        b"link" => {
            if contains(&ascii_lower(attr_value(tag, b"rel")), b"stylesheet") {
                f.sheets += 1;
            }
        }
        b"input" => match &ascii_lower(attr_value(tag, b"type"))[..] {
            b"hidden" | b"submit" | b"button" | b"image" | b"reset" | b"checkbox" | b"radio" => {}
            _ => f.fields += 1,
        },
        b"select" | b"textarea" => f.fields += 1,
        _ => {}
    }
}

/// Appends doc[lo..hi] to spans, joined to the last span when only a
/// little white space lies between them (adjacent tags).
fn add_span(doc: &[u8], spans: &mut Vec<Span>, lo: usize, hi: usize) {
    if let Some(last) = spans.last_mut() {
        if lo >= last.hi && lo - last.hi <= 16 && all_space(&doc[last.hi..lo]) {
            last.hi = hi;
            return;
        }
    }
    spans.push(Span { lo, hi });
}

/// strings.TrimSpace(s) == "".
fn all_space(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        if !is_unicode_space(r) {
            return false;
        }
        i += w;
    }
    true
}

/// Adds a run of character data to the visible text: entities decoded,
/// whitespace collapsed, runes counted (past what is kept).
fn add_text(f: &mut DocFacts, s: &[u8]) {
    let decoded;
    let mut s = s;
    if s.contains(&b'&') {
        decoded = unescape(s);
        s = &decoded;
    }
    let mut space = !f.text.is_empty();
    while !s.is_empty() {
        let (r, size) = decode_rune(s);
        if is_space(r) {
            space = !f.text.is_empty();
            s = &s[size..];
            continue;
        }
        if f.text_runes <= WALL_MAX_TEXT {
            if space {
                f.text.push(b' ');
            }
            f.text.extend_from_slice(&s[..size]);
        }
        space = false;
        f.text_runes += 1;
        s = &s[size..];
    }
    if space && f.text_runes <= WALL_MAX_TEXT {
        f.text.push(b' ');
    }
}

pub fn is_space(r: u32) -> bool {
    r == 0x20 || r == 0x0A || r == 0x09 || r == 0x0D || r == 0x0C || r == 0xA0
}

/// The non-space runes of a rendered text, counted until past limit.
pub fn count_runes(s: &[u8], limit: usize) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        i += w;
        if !is_space(r) {
            n += 1;
            if n > limit {
                break;
            }
        }
    }
    n
}

/// The length of the tag at the start of s (through its '>'), quoted
/// values skipped, or s.len() when it does not end; and whether the tag
/// says "none" or "hidden" (any case), found in the same pass.
pub fn tag_end(s: &[u8]) -> (usize, bool) {
    const NONE: u32 = u32::from_be_bytes(*b"none");
    const HIDD: u32 = u32::from_be_bytes(*b"hidd");
    const IDDE: u32 = u32::from_be_bytes(*b"idde");
    let mut quote = 0u8;
    let mut window = 0u32;
    let mut maybe = false;
    for k in 1..s.len() {
        let c = s[k];
        window = (window << 8) | (c | 0x20) as u32;
        if window == NONE || window == HIDD || window == IDDE {
            maybe = true;
        }
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
        } else if c == b'"' || c == b'\'' {
            // A quote opens a value only after '='.
            if s[k - 1] == b'=' || (s[k - 1] == b' ' && k > 1 && s[k - 2] == b'=') {
                quote = c;
            }
        } else if c == b'>' {
            return (k + 1, maybe);
        }
    }
    (s.len(), maybe)
}

/// The name at the start of t (after '<' or '</'), as written.
pub fn tag_name(t: &[u8]) -> &[u8] {
    let mut j = 0;
    while j < t.len() && (t[j].is_ascii_alphabetic() || (j > 0 && (t[j].is_ascii_digit() || t[j] == b'-'))) {
        j += 1;
    }
    &t[..j]
}

/// Finds the end tag that starts with prefix (ASCII case ignored, as
/// "</script") at or after i: the index past it and where it starts, or
/// doc.len() twice.
fn closing(doc: &[u8], mut i: usize, prefix: &[u8]) -> (usize, usize) {
    while i < doc.len() {
        match index(&doc[i..], b"</") {
            None => break,
            Some(k) => i += k,
        }
        if has_prefix_fold(&doc[i..], prefix) {
            let n = tag_end(&doc[i..]).0;
            return (i + n, i);
        }
        i += 2;
    }
    (doc.len(), doc.len())
}

fn trim_left_ws(s: &[u8]) -> &[u8] {
    let k = s.iter().position(|&c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(s.len());
    &s[k..]
}

/// The value of attribute name (lower-case) in a start tag, or empty
/// (also for an attribute without a value).
pub fn attr_value<'t>(tag: &'t [u8], name: &[u8]) -> &'t [u8] {
    let mut k = 1;
    while k + name.len() < tag.len() {
        if !has_prefix_fold(&tag[k..], name) || !matches!(tag[k - 1], b' ' | b'\t' | b'\n' | b'\r' | b'/') {
            k += 1;
            continue;
        }
        let v = trim_left_ws(&tag[k + name.len()..]);
        if v.first() != Some(&b'=') {
            k += 1;
            continue;
        }
        let v = trim_left_ws(&v[1..]);
        if v.is_empty() {
            return v;
        }
        let q = v[0];
        if q == b'"' || q == b'\'' {
            return match v[1..].iter().position(|&c| c == q) {
                Some(e) => &v[1..1 + e],
                None => &v[1..],
            };
        }
        let e = v.iter().position(|&c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'>')).unwrap_or(v.len());
        return &v[..e];
    }
    &tag[..0]
}

/// A start tag whose element shows nothing: the hidden attribute, or an
/// inline style with display: none.
fn hides(tag: &[u8]) -> bool {
    let s = attr_value(tag, b"style");
    if !s.is_empty() {
        let s: Vec<u8> = ascii_lower(s).into_iter().filter(|&c| c != b' ').collect();
        if contains(&s, b"display:none") {
            return true;
        }
    }
    let mut k = 1;
    while k + 6 < tag.len() {
        if has_prefix_fold(&tag[k..], b"hidden") && matches!(tag[k - 1], b' ' | b'\t' | b'\n') && matches!(tag[k + 6], b' ' | b'>' | b'/' | b'=' | b'\t' | b'\n') {
            return true;
        }
        k += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(doc: &[u8], spans: &[Span]) -> String {
        let mut b = Vec::new();
        for s in spans {
            b.extend_from_slice(&doc[s.lo..s.hi]);
            b.push(b'\n');
        }
        String::from_utf8(b).unwrap()
    }

    // What the one pass over a document counts as shown, built and script.
    #[test]
    fn document_reading() {
        let doc = concat!(
            r#"<html><head><title>T &amp; U</title><script src="/a.js"></script><script>var s="<div id='px-captcha'>";</script>"#,
            r#"<style>p{color:red}</style></head><body><p>Visible &amp; counted</p><div style="display: none"><div><p>hidden text</p></div>"#,
            r#"<form id="challenge-form" action="/x"></form></div><p>after</p><!-- <p>comment</p> --><noscript>enable js</noscript>"#,
            r#"<iframe src="/f">fallback</iframe><a href="/1">link</a><input type="email"><input type="hidden"></body></html>"#
        )
        .as_bytes();
        let f = read_doc(doc, true);
        assert_eq!(f.title, b"T & U");
        assert_eq!(String::from_utf8_lossy(&f.text), "Visible & counted after link");
        assert_eq!((f.links, f.fields, f.srcs, f.rich), (1, 1, 1, false));
        let built = joined(doc, &f.built);
        assert!(built.contains(r#"<form id="challenge-form""#) && !built.contains("px-captcha") && built.contains("fallback"), "{}", built);
        let script = joined(doc, &f.script);
        assert!(script.contains("px-captcha") && script.contains(r#"src="/a.js""#), "{}", script);
        // A page with more text than any wall stops the reading early.
        let long = format!("<p>{}</p><script>window._cf_chl_opt={{}}</script>", "word ".repeat(WALL_MAX_TEXT + 10));
        let f = read_doc(long.as_bytes(), true);
        assert!(f.rich && !joined(long.as_bytes(), &f.script).contains("_cf_chl_opt"));
    }

    #[test]
    fn tags_and_attributes() {
        assert_eq!(tag_end(b"<a href='x>y' b>z"), (16, false));
        assert_eq!(tag_end(b"<a href=\"x>y\" b>z"), (16, false));
        assert_eq!(tag_end(b"<div HIDDEN>"), (12, true));
        assert_eq!(attr_value(b"<a data-href=\"/n\" href = '/y'>", b"href"), b"/y");
        assert_eq!(attr_value(b"<input TYPE=Email>", b"type"), b"Email");
        assert!(hides(b"<p style=\"Display: None\">"));
        assert!(hides(b"<div hidden>"));
        assert!(!hides(b"<div data-hidden>"));
        assert_eq!(tag_name(b"H1 class"), b"H1");
        assert_eq!(tag_name(b"my-el2 x"), b"my-el2");
    }
}
