// The hook ABI's types as abi/types.go defines them, read from and written
// to JSON the way the host's encoding/json does: fields in the Go struct's
// order, omitempty fields left out when empty, unknown fields ignored, a
// field of the wrong type an error (the call fails closed).

use super::json::{self, Value};

pub const ABI_MAJOR: u32 = 1;
pub const ABI_MINOR: u32 = 0;
pub const BROWSER_MAJOR: u32 = 1;
pub const BROWSER_MINOR: u32 = 0;

// Operations of ww_call (abi.OpDescribe...).
pub const OP_DESCRIBE: i32 = 1;
pub const OP_CALL: i32 = 2;
pub const OP_HOOK: i32 = 3;
pub const OP_SELF_TEST: i32 = 4;

// Features (abi.Feature*).
pub const FEATURE_RAW_PAGE: &str = "raw_page";
pub const FEATURE_RAW_SNAPSHOT: &str = "raw_snapshot";
pub const FEATURE_BLOBS: &str = "blobs";
pub const FEATURE_ACTIVE_MARK: &str = "active_mark";
pub const FEATURE_LONG_TEXT_PAGE: &str = "long_text_page";
// abi.LongTextRunes: past this much text, a FEATURE_LONG_TEXT_PAGE
// detector calls no page a wall.
pub const LONG_TEXT_RUNES: usize = 3000;

// Hook roles (abi.Hook*).
pub const ROLE_DETECT: &str = "detect";
pub const ROLE_COMPACT: &str = "compact";
pub const ROLE_MASK: &str = "mask";

// Error codes (abi/errors.go): the closed set.
pub const CODE_INPUT_INVALID: &str = "input_invalid";
pub const CODE_NOT_FOUND: &str = "not_found";
pub const CODE_NOT_AVAILABLE: &str = "not_available";
pub const CODE_EXECUTION_FAILED: &str = "execution_failed";
pub const CODE_PLUGIN_FAILED: &str = "plugin_failed";
pub const CODE_BOT_WALL: &str = "bot_wall";
pub const CODES: &[&str] = &[
    "input_invalid", "not_found", "not_available", "refused", "timeout", "execution_failed",
    "plugin_failed", "resource_limit", "abi_mismatch", "no_session", "stale_ref",
    "not_interactable", "navigation_timeout", "dialog_gone", "path_refused", "browser_crashed",
    "bot_wall", "secret_leak", "unreachable",
];

// Log levels of ww_log.
pub const LOG_DEBUG: i32 = 0;
pub const LOG_INFO: i32 = 1;
pub const LOG_WARN: i32 = 2;
pub const LOG_ERROR: i32 = 3;

/// Error is the one error shape on the wire (abi.Error). Details are kept
/// sorted by key, as Go writes a map.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Error {
    pub code: String,
    pub message: String,
    pub details: Vec<(String, String)>,
}

impl Error {
    pub fn new(code: &str, message: impl Into<String>) -> Error {
        Error { code: code.to_string(), message: message.into(), details: Vec::new() }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    pub url: String,
    pub status: i64,
    pub headers: Vec<(String, String)>,
    pub title: String,
    /// The rendered text and the document, as bytes: a raw page
    /// (raw_page) comes as the server sent it, not always valid UTF-8,
    /// and a detector reads it byte for byte as a Go one does.
    pub text: Vec<u8>,
    pub html: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Image {
    pub mime: String,
    pub data: String,
}

/// HookResult is abi.Result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookResult {
    pub text: String,
    pub data: Option<Value>,
    pub snapshot: String,
    pub snapshot_diff: String,
    pub page: Option<Page>,
    pub images: Vec<Image>,
    pub files: Vec<String>,
    pub risk: String,
    pub external: bool,
    pub source: String,
    pub warnings: Vec<String>,
    pub events: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookRequest {
    pub role: String,
    pub tool: String,
    pub session: String,
    pub args: Option<Value>,
    pub result: Option<HookResult>,
    pub error: Option<Error>,
    pub has_takeover: bool,
}

/// HookResponse: a None result leaves the result as it was.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookResponse {
    pub result: Option<HookResult>,
    pub error: Option<Error>,
}

/// SelfTestCase is a fixture the host runs the real hook on (abi.SelfTestCase).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfTestCase {
    pub name: String,
    pub role: String,
    pub result: Option<HookResult>,
    pub want: String,
}

// ---- reading ----

type Fields<'a> = &'a [(String, Value)];

fn bad(field: &str, want: &str) -> String {
    format!("field {} is not {}", field, want)
}

fn object<'a>(v: &'a Value, field: &str) -> Result<Fields<'a>, String> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(bad(field, "an object")),
    }
}

/// each calls f on every member of the object, null members skipped (Go
/// leaves a field alone for null).
fn each(m: Fields, mut f: impl FnMut(&str, &Value) -> Result<(), String>) -> Result<(), String> {
    for (k, v) in m {
        if *v != Value::Null {
            f(k, v)?;
        }
    }
    Ok(())
}

fn string(v: &Value, field: &str) -> Result<String, String> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        _ => Err(bad(field, "a string")),
    }
}

fn boolean(v: &Value, field: &str) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(bad(field, "a boolean")),
    }
}

fn int(v: &Value, field: &str) -> Result<i64, String> {
    match v {
        Value::Number(n) => n.parse::<i64>().map_err(|_| bad(field, "an integer")),
        _ => Err(bad(field, "a number")),
    }
}

fn strings(v: &Value, field: &str) -> Result<Vec<String>, String> {
    match v {
        Value::Array(a) => a.iter().map(|x| string(x, field)).collect(),
        _ => Err(bad(field, "an array of strings")),
    }
}

fn string_map(v: &Value, field: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    each(object(v, field)?, |k, x| {
        let s = string(x, field)?;
        out.retain(|(key, _)| key != k);
        out.push((k.to_string(), s));
        Ok(())
    })?;
    out.sort();
    Ok(out)
}

impl Error {
    pub fn from_json(v: &Value) -> Result<Error, String> {
        let mut e = Error::default();
        each(object(v, "error")?, |k, x| {
            match k {
                "code" => e.code = string(x, k)?,
                "message" => e.message = string(x, k)?,
                "details" => e.details = string_map(x, k)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(e)
    }
}

impl Page {
    pub fn from_json(v: &Value) -> Result<Page, String> {
        let mut p = Page::default();
        each(object(v, "page")?, |k, x| {
            match k {
                "url" => p.url = string(x, k)?,
                "status" => p.status = int(x, k)?,
                "headers" => p.headers = string_map(x, k)?,
                "title" => p.title = string(x, k)?,
                "text" => p.text = string(x, k)?.into_bytes(),
                "html" => p.html = string(x, k)?.into_bytes(),
                _ => {}
            }
            Ok(())
        })?;
        Ok(p)
    }
}

impl HookResult {
    pub fn from_json(v: &Value) -> Result<HookResult, String> {
        let mut r = HookResult::default();
        each(object(v, "result")?, |k, x| {
            match k {
                "text" => r.text = string(x, k)?,
                "data" => r.data = Some(x.clone()),
                "snapshot" => r.snapshot = string(x, k)?,
                "snapshot_diff" => r.snapshot_diff = string(x, k)?,
                "page" => r.page = Some(Page::from_json(x)?),
                "images" => r.images = images(x)?,
                "files" => r.files = strings(x, k)?,
                "risk" => r.risk = string(x, k)?,
                "external" => r.external = boolean(x, k)?,
                "source" => r.source = string(x, k)?,
                "warnings" => r.warnings = strings(x, k)?,
                "events" => r.events = strings(x, k)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(r)
    }
}

fn images(v: &Value) -> Result<Vec<Image>, String> {
    let a = match v {
        Value::Array(a) => a,
        _ => return Err(bad("images", "an array")),
    };
    let mut out = Vec::new();
    for x in a {
        let mut im = Image::default();
        each(object(x, "images")?, |k, y| {
            match k {
                "mime" => im.mime = string(y, k)?,
                "data" => im.data = string(y, k)?,
                _ => {}
            }
            Ok(())
        })?;
        out.push(im);
    }
    Ok(out)
}

impl HookRequest {
    pub fn from_json(v: &Value) -> Result<HookRequest, String> {
        let mut r = HookRequest::default();
        each(object(v, "request")?, |k, x| {
            match k {
                "role" => r.role = string(x, k)?,
                "tool" => r.tool = string(x, k)?,
                "session" => r.session = string(x, k)?,
                "args" => r.args = Some(x.clone()),
                "result" => r.result = Some(HookResult::from_json(x)?),
                "error" => r.error = Some(Error::from_json(x)?),
                "has_takeover" => r.has_takeover = boolean(x, k)?,
                _ => {}
            }
            Ok(())
        })?;
        Ok(r)
    }
}

/// read_hook_request reads a hook's input in either form the host sends
/// (abi.ReadHookRequest): JSON, or a frame whose body is the snapshot
/// (compact, mask) or the page's text and HTML (detect). framed says which,
/// so the answer goes back the same way.
pub fn read_hook_request(input: &[u8]) -> Result<(HookRequest, bool), String> {
    if input.first() == Some(&b'{') {
        if let Ok(v) = json::parse(input) {
            return Ok((HookRequest::from_json(&v)?, false));
        }
    }
    let (header, body) = unframe(input)?;
    let v = json::parse(header).map_err(|e| format!("abi: frame header: {}", e))?;
    let mut req = HookRequest::from_json(&v).map_err(|e| format!("abi: frame header: {}", e))?;
    let res = match req.result.as_mut() {
        Some(r) => r,
        None => return Err("abi: raw hook request body without a result".into()),
    };
    if req.role != ROLE_DETECT {
        res.snapshot = String::from_utf8_lossy(body).into_owned();
        return Ok((req, true));
    }
    if body.len() < 4 {
        return Err("abi: raw page body shorter than its length prefix".into());
    }
    let n = u32::from_le_bytes([body[0], body[1], body[2], body[3]]) as usize;
    if n > body.len() - 4 {
        return Err("abi: raw page text length exceeds the body".into());
    }
    let page = match res.page.as_mut() {
        Some(p) => p,
        None => return Err("abi: raw page body without a result.page".into()),
    };
    page.text = body[4..4 + n].to_vec();
    page.html = body[4 + n..].to_vec();
    Ok((req, true))
}

/// unframe splits a frame (abi.Frame): a little-endian u32 header length,
/// the header, the body.
pub fn unframe(input: &[u8]) -> Result<(&[u8], &[u8]), String> {
    if input.len() < 4 {
        return Err("abi: frame shorter than its length prefix".into());
    }
    let n = u32::from_le_bytes([input[0], input[1], input[2], input[3]]) as usize;
    if n > input.len() - 4 {
        return Err("abi: frame header length exceeds the frame".into());
    }
    Ok((&input[4..4 + n], &input[4 + n..]))
}

// ---- writing ----

/// Obj writes a JSON object member by member.
pub struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    pub fn new(out: &'a mut String) -> Obj<'a> {
        out.push('{');
        Obj { out, first: true }
    }
    pub fn key(&mut self, k: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        json::write_str(self.out, k);
        self.out.push(':');
        self.out
    }
    pub fn str(&mut self, k: &str, v: &str) {
        json::write_str(self.key(k), v);
    }
    pub fn str_nonempty(&mut self, k: &str, v: &str) {
        if !v.is_empty() {
            self.str(k, v);
        }
    }
    pub fn strs_nonempty(&mut self, k: &str, v: &[String]) {
        if !v.is_empty() {
            let out = self.key(k);
            write_strs(out, v);
        }
    }
    pub fn raw(&mut self, k: &str, json: &str) {
        self.key(k).push_str(json);
    }
    pub fn end(self) {
        self.out.push('}');
    }
}

pub fn write_strs(out: &mut String, v: &[String]) {
    out.push('[');
    for (i, s) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json::write_str(out, s);
    }
    out.push(']');
}

fn write_map(out: &mut String, m: &[(String, String)]) {
    let mut o = Obj::new(out);
    for (k, v) in m {
        o.str(k, v);
    }
    o.end();
}

impl Error {
    pub fn write(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("code", &self.code);
        o.str("message", &self.message);
        if !self.details.is_empty() {
            write_map(o.key("details"), &self.details);
        }
        o.end();
    }
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

impl Page {
    pub fn write(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("url", &self.url);
        if self.status != 0 {
            o.raw("status", &self.status.to_string());
        }
        if !self.headers.is_empty() {
            write_map(o.key("headers"), &self.headers);
        }
        o.str_nonempty("title", &self.title);
        o.str_nonempty("text", &String::from_utf8_lossy(&self.text));
        o.str_nonempty("html", &String::from_utf8_lossy(&self.html));
        o.end();
    }
}

impl HookResult {
    pub fn write(&self, out: &mut String) {
        self.write_fields(out, true)
    }

    // write_fields writes the result, its snapshot only when with_snapshot
    // (a framed answer carries it outside the JSON).
    fn write_fields(&self, out: &mut String, with_snapshot: bool) {
        let mut o = Obj::new(out);
        o.str_nonempty("text", &self.text);
        if let Some(d) = &self.data {
            d.write(o.key("data"));
        }
        if with_snapshot {
            o.str_nonempty("snapshot", &self.snapshot);
        }
        o.str_nonempty("snapshot_diff", &self.snapshot_diff);
        if let Some(p) = &self.page {
            p.write(o.key("page"));
        }
        if !self.images.is_empty() {
            let out = o.key("images");
            out.push('[');
            for (i, im) in self.images.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let mut io = Obj::new(out);
                io.str("mime", &im.mime);
                io.str("data", &im.data);
                io.end();
            }
            out.push(']');
        }
        o.strs_nonempty("files", &self.files);
        o.str_nonempty("risk", &self.risk);
        if self.external {
            o.raw("external", "true");
        }
        o.str_nonempty("source", &self.source);
        o.strs_nonempty("warnings", &self.warnings);
        o.strs_nonempty("events", &self.events);
        o.end();
    }
}

impl HookResponse {
    /// to_json is the answer as JSON (a maskers' envelope: the result and
    /// the error together).
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    pub fn write(&self, out: &mut String) {
        let mut o = Obj::new(out);
        if let Some(r) = &self.result {
            r.write(o.key("result"));
        }
        if let Some(e) = &self.error {
            e.write(o.key("error"));
        }
        o.end();
    }

    /// encode writes the answer as abi.EncodeHookResponse does: JSON, or,
    /// when raw (the request came framed) and the result has a snapshot, a
    /// frame whose header is the answer without its snapshot and whose
    /// body is the snapshot.
    pub fn encode(&self, raw: bool) -> Vec<u8> {
        let snap = match &self.result {
            Some(r) if raw && !r.snapshot.is_empty() => r.snapshot.as_str(),
            _ => {
                let mut s = String::new();
                self.write(&mut s);
                return s.into_bytes();
            }
        };
        let mut head = String::from("\0\0\0\0");
        let mut o = Obj::new(&mut head);
        if let Some(r) = &self.result {
            r.write_fields(o.key("result"), false);
        }
        if let Some(e) = &self.error {
            e.write(o.key("error"));
        }
        o.end();
        let mut out = head.into_bytes();
        let n = (out.len() - 4) as u32;
        out[..4].copy_from_slice(&n.to_le_bytes());
        out.extend_from_slice(snap.as_bytes());
        out
    }
}

impl SelfTestCase {
    pub fn write(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("name", &self.name);
        o.str("role", &self.role);
        match &self.result {
            Some(r) => r.write(o.key("result")),
            None => o.raw("result", "null"),
        }
        o.str_nonempty("want", &self.want);
        o.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(header: &str, body: &[u8]) -> Vec<u8> {
        let mut v = (header.len() as u32).to_le_bytes().to_vec();
        v.extend_from_slice(header.as_bytes());
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn reads_a_json_request() {
        let src = br#"{"role":"compact","tool":"browser_snapshot","session":"s1","args":{"ref":"e2"},"result":{"text":"ok","snapshot":"- a","page":{"url":"u","status":200,"headers":{"b":"2","a":"1"}},"images":[{"mime":"image/png","data":"AA=="}],"external":true,"warnings":["w"],"unknown":[1]},"error":{"code":"timeout","message":"m","details":{"k":"v"}},"has_takeover":true}"#;
        let (r, framed) = read_hook_request(src).unwrap();
        assert!(!framed);
        assert_eq!(r.role, "compact");
        assert_eq!(r.session, "s1");
        assert_eq!(r.args.unwrap().get("ref").unwrap().as_str(), Some("e2"));
        let res = r.result.unwrap();
        assert_eq!(res.snapshot, "- a");
        assert_eq!(res.page.as_ref().unwrap().status, 200);
        assert_eq!(res.page.as_ref().unwrap().headers, vec![("a".into(), "1".into()), ("b".into(), "2".into())]);
        assert_eq!(res.images[0].data, "AA==");
        assert!(res.external && r.has_takeover);
        assert_eq!(r.error.unwrap().details, vec![("k".into(), "v".into())]);
    }

    #[test]
    fn reads_framed_snapshot_and_page() {
        let (r, framed) = read_hook_request(&frame(r#"{"role":"mask","tool":"t","result":{"text":"x"}}"#, b"- snap \"q\"\n")).unwrap();
        assert!(framed);
        assert_eq!(r.result.unwrap().snapshot, "- snap \"q\"\n");
        let mut body = 3u32.to_le_bytes().to_vec();
        body.extend_from_slice(b"abc<html>");
        let (r, _) = read_hook_request(&frame(r#"{"role":"detect","tool":"t","result":{"page":{"url":"u"}}}"#, &body)).unwrap();
        let p = r.result.unwrap().page.unwrap();
        assert_eq!((&p.text[..], &p.html[..]), (&b"abc"[..], &b"<html>"[..]));
    }

    #[test]
    fn refuses_bad_requests() {
        let bad: Vec<Vec<u8>> = vec![
            b"{\"role\":1}".to_vec(),
            b"{\"result\":{\"page\":{\"status\":\"x\"}}}".to_vec(),
            b"{\"result\":{\"page\":{\"status\":1.5}}}".to_vec(),
            b"{\"result\":{\"warnings\":[1]}}".to_vec(),
            b"ab".to_vec(),
            frame("{\"role\":\"compact\"}", b"snap"),
            frame("{\"role\":\"detect\",\"result\":{\"page\":{}}}", b"\x09\0\0\0abc"),
            frame("{\"role\":\"detect\",\"result\":{}}", b"\x01\0\0\0abc"),
            b"\xff\0\0\0{}".to_vec(),
        ];
        for b in bad {
            assert!(read_hook_request(&b).is_err(), "accepted {:?}", String::from_utf8_lossy(&b));
        }
    }

    #[test]
    fn writes_like_go() {
        // The bytes Go's encoding/json writes for the same abi.HookResponse.
        let resp = HookResponse {
            result: Some(HookResult {
                text: "ok".into(),
                data: Some(json::parse(br#"{"b": [1, "x"]}"#).unwrap()),
                page: Some(Page { url: "u".into(), ..Page::default() }),
                warnings: vec!["w".into()],
                ..HookResult::default()
            }),
            error: Some(Error { code: "timeout".into(), message: "<m>".into(), details: vec![("a".into(), "1".into())] }),
        };
        assert_eq!(
            String::from_utf8(resp.encode(false)).unwrap(),
            r#"{"result":{"text":"ok","data":{"b":[1,"x"]},"page":{"url":"u"},"warnings":["w"]},"error":{"code":"timeout","message":"<m>","details":{"a":"1"}}}"#
        );
        assert_eq!(String::from_utf8(HookResponse::default().encode(true)).unwrap(), "{}");
    }

    #[test]
    fn framed_answer_carries_the_snapshot_raw() {
        let resp = HookResponse { result: Some(HookResult { text: "t".into(), snapshot: "- s\n".into(), ..HookResult::default() }), error: None };
        let out = resp.encode(true);
        let (h, body) = unframe(&out).unwrap();
        assert_eq!(h, br#"{"result":{"text":"t"}}"#);
        assert_eq!(body, b"- s\n");
        assert_eq!(String::from_utf8(resp.encode(false)).unwrap(), r#"{"result":{"text":"t","snapshot":"- s\n"}}"#);
    }
}
