// The forms a secret value takes on its way out of a browser other than its
// UTF-8 text (internal/secretforms, ported): the bytes a form submits it as
// in each legacy charset of the HTML standard, and the text those bytes
// become when something decodes them as windows-1252 or Latin-1.
//
// The charsets' encoders are tables (charsets.bin), generated from the Go
// package's own encoders by charsets_test.go, which also checks the file is
// still what they write: per charset, every character beyond ASCII it can
// encode, with its code.

/// FORM_CHARSETS are the encodings a form can submit in, by their WHATWG
/// names, then UTF-16 (secretforms.FormCharsets, in its order).
pub const FORM_CHARSETS: [&str; 36] = [
    "windows-1252", "iso-8859-2", "iso-8859-3", "iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7",
    "iso-8859-8", "iso-8859-10", "iso-8859-13", "iso-8859-14", "iso-8859-15", "iso-8859-16",
    "windows-874", "windows-1250", "windows-1251", "windows-1253", "windows-1254", "windows-1255",
    "windows-1256", "windows-1257", "windows-1258", "ibm866", "koi8-r", "koi8-u", "macintosh", "x-mac-cyrillic",
    "shift_jis", "euc-jp", "iso-2022-jp", "gbk", "gb18030", "big5", "euc-kr",
    "utf-16le", "utf-16be",
];

static TABLES: &[u8] = include_bytes!("charsets.bin");

/// Table is one charset's encoder: (character, code) sorted by character
/// (a code below 0x100 is one byte, else two), and gb18030's four-byte
/// ranges (first character, count, first linear index).
struct Table {
    name: String,
    codes: Vec<(u32, u16)>,
    runs: Vec<(u32, u32, u32)>,
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    fn uint(&mut self, n: usize) -> u32 {
        let mut v = 0u32;
        for k in 0..n {
            v |= (self.b[self.i + k] as u32) << (8 * k);
        }
        self.i += n;
        v
    }
}

fn load() -> Vec<Table> {
    let mut r = Reader { b: TABLES, i: 0 };
    let mut out: Vec<Table> = Vec::new();
    while r.i < r.b.len() {
        let n = r.uint(1) as usize;
        let name = String::from_utf8_lossy(&r.b[r.i..r.i + n]).into_owned();
        r.i += n;
        let count = r.uint(4) as usize;
        let same = r.uint(1) as usize;
        let chars: Vec<u32> = if same == 0 { (0..count).map(|_| r.uint(3)).collect() } else { out[same - 1].codes.iter().map(|c| c.0).collect() };
        let codes = chars.into_iter().map(|c| (c, r.uint(2) as u16)).collect();
        let m = r.uint(4) as usize;
        let runs = (0..m).map(|_| (r.uint(4), r.uint(4), r.uint(4))).collect();
        out.push(Table { name, codes, runs });
    }
    out
}

static mut LOADED: Option<Vec<Table>> = None;

fn tables() -> &'static [Table] {
    // Safety: a plugin instance runs one call at a time on one thread.
    unsafe {
        if LOADED.is_none() {
            LOADED = Some(load());
        }
        LOADED.as_ref().map(|v| v.as_slice()).unwrap_or(&[])
    }
}

impl Table {
    /// code is how the charset writes c beyond ASCII, if it can.
    fn code(&self, c: u32) -> Option<Vec<u8>> {
        if let Ok(i) = self.codes.binary_search_by_key(&c, |e| e.0) {
            let v = self.codes[i].1;
            return Some(if v < 0x100 { vec![v as u8] } else { vec![(v >> 8) as u8, v as u8] });
        }
        let i = self.runs.partition_point(|r| r.0 <= c);
        if i > 0 {
            let (first, n, lin) = self.runs[i - 1];
            if c < first + n {
                let mut l = lin + (c - first);
                let b4 = (l % 10) as u8 + 0x30;
                l /= 10;
                let b3 = (l % 126) as u8 + 0x81;
                l /= 126;
                let b2 = (l % 10) as u8 + 0x30;
                let b1 = (l / 10) as u8 + 0x81;
                return Some(vec![b1, b2, b3, b4]);
            }
        }
        None
    }
}

fn reference(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(format!("&#{};", c as u32).as_bytes());
}

/// encode returns v in the named charset the way a form submits it:
/// characters the charset cannot encode as &#NNNN; (secretforms.Encode).
pub fn encode(name: &str, v: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(v.len() * 2);
    if name == "utf-16le" || name == "utf-16be" {
        let mut units = [0u16; 2];
        for c in v.chars() {
            for u in c.encode_utf16(&mut units).iter() {
                let b = if name == "utf-16le" { u.to_le_bytes() } else { u.to_be_bytes() };
                out.extend_from_slice(&b);
            }
        }
        return Some(out);
    }
    let t = tables().iter().find(|t| t.name == name)?;
    if name == "iso-2022-jp" {
        return Some(iso2022jp(t, v));
    }
    for c in v.chars() {
        if (c as u32) < 0x80 {
            out.push(c as u8);
            continue;
        }
        match t.code(c as u32) {
            Some(b) => out.extend_from_slice(&b),
            None => reference(&mut out, c),
        }
    }
    Some(out)
}

/// iso2022jp is x/text's stateful ISO-2022-JP encoder: escapes switch
/// between ASCII, JIS X 0208 and half-width katakana, an unencodable
/// character is written in ASCII, and the text ends in ASCII.
fn iso2022jp(t: &Table, v: &str) -> Vec<u8> {
    #[derive(PartialEq, Clone, Copy)]
    enum State {
        Ascii,
        Jis,
        Kana,
    }
    let mut out = Vec::new();
    let mut st = State::Ascii;
    let mut switch = |out: &mut Vec<u8>, to: State| {
        if st != to {
            out.extend_from_slice(match to {
                State::Ascii => b"\x1b(B",
                State::Jis => b"\x1b$B",
                State::Kana => b"\x1b(I",
            });
            st = to;
        }
    };
    for c in v.chars() {
        let code = if (c as u32) < 0x80 { None } else { t.code(c as u32) };
        match code {
            Some(b) if b.len() == 2 => {
                switch(&mut out, State::Jis);
                out.extend_from_slice(&b);
            }
            Some(b) => {
                switch(&mut out, State::Kana);
                out.extend_from_slice(&b);
            }
            None => {
                switch(&mut out, State::Ascii);
                if (c as u32) < 0x80 {
                    out.push(c as u8);
                } else {
                    reference(&mut out, c);
                }
            }
        }
    }
    switch(&mut out, State::Ascii);
    out
}

/// charsets returns the distinct byte forms of v in FORM_CHARSETS, those
/// equal to v's UTF-8 bytes left out (secretforms.Charsets).
pub fn charsets(v: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    if v.is_empty() {
        return out;
    }
    for name in FORM_CHARSETS.iter() {
        if let Some(b) = encode(name, v) {
            if b != v.as_bytes() && !out.contains(&b) {
                out.push(b);
            }
        }
    }
    out
}

/// WINDOWS_1252 is x/text's windows-1252 decoding of the bytes 0x80-0xFF
/// (its five undefined bytes read as U+FFFD).
const WINDOWS_1252: [u16; 32] = [
    0x20ac, 0xfffd, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0xfffd,
    0x017d, 0xfffd, 0xfffd, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
    0x0153, 0xfffd, 0x017e, 0x0178,
];

fn windows1252(b: u8) -> char {
    if (0x80..0xa0).contains(&b) {
        return char::from_u32(WINDOWS_1252[(b - 0x80) as usize] as u32).unwrap_or('\u{fffd}');
    }
    b as char
}

/// misdecoded returns the text v's byte forms (UTF-8 and every charset
/// form) turn into when decoded as windows-1252 or ISO-8859-1; none for an
/// ASCII value (secretforms.Misdecoded).
pub fn misdecoded(v: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if v.is_ascii() {
        return out;
    }
    let mut add = |s: String| {
        if !s.is_empty() && s != v && !out.contains(&s) {
            out.push(s);
        }
    };
    let mut forms = vec![v.as_bytes().to_vec()];
    forms.extend(charsets(v));
    for f in &forms {
        if f.contains(&0) {
            continue; // UTF-16: NULs, not text anyone reads
        }
        add(f.iter().map(|&b| windows1252(b)).collect());
        add(f.iter().map(|&b| b as char).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_the_browser() {
        assert_eq!(encode("windows-1252", "püß €").unwrap(), b"p\xfc\xdf \x80");
        assert_eq!(encode("koi8-r", "pü").unwrap(), b"p&#252;");
        assert_eq!(encode("shift_jis", "パス").unwrap(), b"\x83p\x83X");
        assert_eq!(encode("iso-2022-jp", "aパス\u{ff76}é").unwrap(), b"a\x1b$B%Q%9\x1b(I6\x1b(B&#233;");
        assert_eq!(encode("gb18030", "\u{1f600}").unwrap(), b"\x94\x39\xfc\x36");
        assert_eq!(encode("utf-16be", "a\u{1f600}").unwrap(), b"\0a\xd8\x3d\xde\x00");
        assert_eq!(encode("nope", "a"), None);
    }

    #[test]
    fn ascii_values_have_only_utf16_forms() {
        assert_eq!(charsets("hunter2").len(), 2);
        assert!(misdecoded("hunter2").is_empty());
        assert!(misdecoded("pü").contains(&"pÃ¼".to_string()));
    }
}
