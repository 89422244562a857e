// A small strict JSON reader and writer: no crate can be fetched here
// (no serde), and a hook plugin needs only this much. Reading is RFC 8259
// and fails closed: bad UTF-8, a control character in a string, a bad
// escape, a leading zero, a trailing comma or trailing bytes are errors
// that say where. Writing matches Go's encoding/json with HTML escaping off
// (what the host's abi package writes), so a value read and written again
// is what the host would have sent.

use std::fmt;

/// Value is one JSON value. Objects keep their members in order (and
/// repeated keys, as Go's compaction of a raw message does); numbers keep
/// their text, so nothing is lost to floating point on the way through.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// Error says what was wrong with the input and at which byte.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub offset: usize,
    pub what: &'static str,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.what)
    }
}

// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 1000;

/// parse reads exactly one JSON value (surrounded by optional whitespace).
pub fn parse(b: &[u8]) -> Result<Value, Error> {
    let mut p = Parser { b, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != b.len() {
        return Err(p.err("unexpected bytes after the value"));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, what: &'static str) -> Error {
        Error { offset: self.i, what }
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deep"));
        }
        match self.peek() {
            None => Err(self.err("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(c) if c == b'-' || c.is_ascii_digit() => self.number(),
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, Error> {
        if self.b[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let int_start = self.i;
        let n = self.digits();
        if n == 0 {
            return Err(self.err("a number needs digits"));
        }
        if n > 1 && self.b[int_start] == b'0' {
            return Err(Error { offset: int_start, what: "leading zero in a number" });
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err("a fraction needs digits"));
            }
        }
        if matches!(self.peek(), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("an exponent needs digits"));
            }
        }
        // Only ASCII was consumed.
        Ok(Value::Number(String::from_utf8_lossy(&self.b[start..self.i]).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        if self.i + 4 > self.b.len() {
            return Err(self.err("short \\u escape"));
        }
        let mut v = 0u32;
        for k in 0..4 {
            let d = match (self.b[self.i + k] as char).to_digit(16) {
                Some(d) => d,
                None => return Err(Error { offset: self.i + k, what: "bad hex digit in a \\u escape" }),
            };
            v = v << 4 | d;
        }
        self.i += 4;
        Ok(v)
    }

    /// string reads a string; self.i is at its opening quote.
    fn string(&mut self) -> Result<String, Error> {
        self.i += 1;
        let mut out = String::new();
        loop {
            // Copy the run of plain bytes at once, checking it is UTF-8.
            let start = self.i;
            while self.i < self.b.len() {
                let c = self.b[self.i];
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            match std::str::from_utf8(&self.b[start..self.i]) {
                Ok(s) => out.push_str(s),
                Err(e) => return Err(Error { offset: start + e.valid_up_to(), what: "invalid UTF-8 in a string" }),
            }
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => self.escape(&mut out)?,
                Some(_) => return Err(self.err("control character in a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Error> {
        self.i += 1;
        let e = match self.peek() {
            Some(e) => e,
            None => return Err(self.err("unterminated escape")),
        };
        self.i += 1;
        let c = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                // A surrogate pair makes one character; a lone surrogate
                // reads as U+FFFD, as Go's decoder reads it.
                if (0xD800..0xDC00).contains(&hi) && self.b[self.i..].starts_with(b"\\u") {
                    let save = self.i;
                    self.i += 2;
                    let lo = self.hex4()?;
                    if (0xDC00..0xE000).contains(&lo) {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        return Ok(());
                    }
                    self.i = save;
                }
                char::from_u32(hi).unwrap_or('\u{FFFD}')
            }
            _ => return Err(Error { offset: self.i - 1, what: "invalid escape" }),
        };
        out.push(c);
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Result<Value, Error> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.err("expected , or ] in an array")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Error> {
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a string key in an object"));
            }
            let k = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.err("expected : after an object key"));
            }
            self.i += 1;
            self.ws();
            let v = self.value(depth + 1)?;
            members.push((k, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.err("expected , or } in an object")),
            }
        }
    }
}

impl Value {
    /// get returns the value of an object's member key (the last one, as
    /// Go's decoder keeps the last of repeated keys), or None.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// write appends the value's compact JSON to out.
    pub fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(n),
            Value::Str(s) => write_str(out, s),
            Value::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    pub fn to_json(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

/// write_str appends s as a JSON string the way Go's encoder writes it
/// with HTML escaping off: \" \\ \b \f \n \r \t, other control characters
/// as \u00xx, and U+2028 and U+2029 escaped (JavaScript reads them as line
/// ends).
pub fn write_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{2028}' => Some("\\u2028"),
            '\u{2029}' => Some("\\u2029"),
            _ => None,
        };
        if esc.is_none() && c >= ' ' {
            continue;
        }
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                let b = c as u32 as usize;
                out.push_str("\\u00");
                out.push(HEX[b >> 4] as char);
                out.push(HEX[b & 0xf] as char);
            }
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// quote returns s as a JSON string.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let src = r#"{"a":[1,-2.5e+3,true,false,null],"b":{"c":"d"},"a":"last","e":[],"f":{}}"#;
        let v = parse(src.as_bytes()).unwrap();
        assert_eq!(v.to_json(), src);
        assert_eq!(v.get("a"), Some(&Value::Str("last".into())));
        assert_eq!(v.get("b").and_then(|b| b.get("c")).and_then(|c| c.as_str()), Some("d"));
    }

    #[test]
    fn whitespace_around_everything() {
        let v = parse(b" \t\r\n{ \"k\" : [ 1 , 2 ] } \n").unwrap();
        assert_eq!(v.to_json(), r#"{"k":[1,2]}"#);
    }

    #[test]
    fn escapes_decode() {
        let v = parse(br#""q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800 x""#).unwrap();
        assert_eq!(v, Value::Str("q\" b\\ s/ \u{8}\u{c}\n\r\t \u{e9} \u{1F600} \u{FFFD} x".into()));
    }

    #[test]
    fn lone_high_surrogate_before_other_escape() {
        let v = parse(br#""\ud800\n""#).unwrap();
        assert_eq!(v, Value::Str("\u{FFFD}\n".into()));
    }

    #[test]
    fn utf8_passes_through() {
        let s = "\"héllo 世界 🎉\"";
        assert_eq!(parse(s.as_bytes()).unwrap().to_json(), s);
    }

    #[test]
    fn writes_like_go() {
        // Go's encoder (SetEscapeHTML(false)) writes these bytes.
        assert_eq!(quote("a\"b\\c\u{1}\u{1f}\u{8}\u{c}\n\r\t<>&\u{2028}\u{2029}\u{7f}é"), "\"a\\\"b\\\\c\\u0001\\u001f\\b\\f\\n\\r\\t<>&\\u2028\\u2029\u{7f}é\"");
    }

    #[test]
    fn refuses_bad_input() {
        let bad: &[&[u8]] = &[
            b"", b"   ", b"{", b"[1,]", b"{\"a\":1,}", b"{a:1}", b"[1 2]", b"01", b"-", b"1.", b"1e", b".5",
            b"+1", b"tru", b"nul", b"\"abc", b"\"a\x01b\"", b"\"\\x\"", b"\"\\u12\"", b"\"\\u12g4\"",
            b"\"\xff\"", b"\"\xc3\"", b"1 2", b"{\"a\" 1}", b"[", b"NaN", b"'a'", b"{\"a\":}",
        ];
        for b in bad {
            assert!(parse(b).is_err(), "accepted {:?}", String::from_utf8_lossy(b));
        }
    }

    #[test]
    fn error_says_where() {
        let e = parse(b"[1,\"a\x01\"]").unwrap_err();
        assert_eq!(e.offset, 5);
        assert_eq!(e.to_string(), "invalid JSON at byte 5: control character in a string");
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 2) + &"]".repeat(MAX_DEPTH + 2);
        assert!(parse(deep.as_bytes()).is_err());
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn numbers_keep_their_text() {
        for n in ["0", "-0", "12345678901234567890123", "1.000", "1E-7", "-0.5e10"] {
            assert_eq!(parse(n.as_bytes()).unwrap(), Value::Number(n.to_string()));
        }
    }
}
