// secretmask is the wasmwright mask hook, always the last of the result
// pipeline: it asks the host for the secret values filled into the session
// (host function ww_secrets_mask_values, grant secrets.mask) and replaces
// every occurrence in every string of the result and of the error (text,
// data, snapshot, page facts, warnings, events, message, details) with
// ••••••, raw or encoded: URL encoding (%20 and +), HTML entities (named,
// decimal, hex), JSON escapes, base64 (standard and URL alphabets, at any
// offset inside a longer base64 string) and hex; and, for values beyond
// ASCII, the bytes a form submits in every legacy charset of the HTML
// standard (forms.rs), percent-encoded, in base64 and in hex.
//
// Rust, on the kit in plugin-sdk/rust; its answers are the Go version's
// (mask_test.go beside it drives the built module through the sandbox).
//
// Build: make plugins (rustc, RUST_WASM_FLAGS).

#[path = "../../plugin-sdk/rust/mod.rs"]
mod sdk;

mod forms;
mod mask;

use mask::{Masker, MASK};
use sdk::json::{self, Value};
use sdk::{abi, Error, HookResponse, HookResult};

pub static PLUGIN: sdk::Plugin = sdk::Plugin {
    name: "secretmask",
    version: "1.0.0",
    description: "Masks the session's secret values, raw or encoded, in every string of a result.",
    needs: &["secrets.mask"],
    features: &[abi::FEATURE_RAW_SNAPSHOT],
    hooks: &[abi::ROLE_MASK],
    hook: Some(hook),
    self_test: Some(self_test),
    ..sdk::Plugin::EMPTY
};

fn hook(_: &sdk::Call, req: sdk::HookRequest) -> Result<HookResponse, Error> {
    if req.result.is_none() && req.error.is_none() {
        return Ok(HookResponse::default());
    }
    let values = match sdk::mask_values(&req.session) {
        Ok(v) => v,
        Err(e) => {
            // Fail closed: without the values nothing can be shown safely.
            let msg = format!("secretmask could not get the values to mask ({}: {}); the result was withheld", e.code, e.message);
            return Err(Error::new(abi::CODE_PLUGIN_FAILED, msg));
        }
    };
    let env = HookResponse { result: req.result, error: req.error };
    if values.is_empty() {
        return Ok(env);
    }
    with_masker(&values, |m| mask_envelope(m, &env))
}

/// LAST is the masker built for the last set of values: a session's values
/// rarely change between results, and building one (every charset form of
/// every value) costs far more than most masking.
static mut LAST: Option<(String, Masker)> = None;

fn with_masker<T>(values: &[String], f: impl FnOnce(&Masker) -> T) -> T {
    let mut key = String::new();
    for v in values {
        key.push_str(&format!("{}:{}", v.len(), v)); // no two sets share a key
    }
    // Safety: a plugin instance runs one call at a time on one thread.
    unsafe {
        if LAST.as_ref().map_or(true, |l| l.0 != key) {
            LAST = Some((key, Masker::new(values)));
        }
        match LAST.as_ref() {
            Some(l) => f(&l.1),
            None => f(&Masker::new(values)),
        }
    }
}

/// mask_envelope masks the result and the error together, as one JSON
/// document the way the host encodes them, and reads the masked document
/// back into their shapes.
fn mask_envelope(m: &Masker, env: &HookResponse) -> Result<HookResponse, Error> {
    let doc = env.to_json();
    let masked = mask_json(m, doc.as_bytes()).map_err(|e| Error::new(abi::CODE_PLUGIN_FAILED, format!("secretmask: {}", e)))?;
    if masked == doc.as_bytes() {
        // Nothing to hide (the common case): no result leaves the result
        // as it is, and the host skips decoding a copy of it.
        return Ok(HookResponse::default());
    }
    let withheld = |e: String| Error::new(abi::CODE_PLUGIN_FAILED, format!("secretmask: the masked result no longer fits its shape ({}); it was withheld", e));
    // A masked number in a typed field (page status...) cannot go back into
    // its type: withhold rather than leak.
    let v = json::parse(&masked).map_err(|e| withheld(e.to_string()))?;
    let mut out = HookResponse::default();
    if let Some(r) = v.get("result").filter(|r| **r != Value::Null) {
        out.result = Some(HookResult::from_json(r).map_err(withheld)?);
    }
    if let Some(e) = v.get("error").filter(|e| **e != Value::Null) {
        let mut e = Error::from_json(e).map_err(withheld)?;
        if !abi::CODES.contains(&e.code.as_str()) {
            e.code = abi::CODE_EXECUTION_FAILED.to_string();
        }
        out.error = Some(e);
    }
    Ok(out)
}

/// mask_json masks every string, object key and number of a JSON document
/// (valid JSON, as the kit writes it). It rewrites only the tokens that
/// change and copies the rest, which in the sandbox is much cheaper than
/// decoding the document and encoding it again.
fn mask_json(m: &Masker, doc: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(doc.len() + 64);
    let mut i = 0;
    while i < doc.len() {
        let c = doc[i];
        if c == b'"' {
            let (mut j, mut esc) = (i + 1, false);
            while j < doc.len() && doc[j] != b'"' {
                if doc[j] == b'\\' {
                    esc = true;
                    j += 1;
                }
                j += 1;
            }
            if j >= doc.len() {
                return Err(format!("unterminated string at {}", i));
            }
            let raw = &doc[i..=j];
            let s = if esc {
                match json::parse(raw).map_err(|e| e.to_string())? {
                    Value::Str(s) => s,
                    _ => return Err(format!("not a string at {}", i)),
                }
            } else {
                String::from_utf8_lossy(&raw[1..raw.len() - 1]).into_owned()
            };
            let ms = m.mask(&s);
            if ms != s {
                out.extend_from_slice(json::quote(&ms).as_bytes());
            } else {
                out.extend_from_slice(raw);
            }
            i = j + 1;
        } else if c == b'-' || c.is_ascii_digit() {
            let mut j = i + 1;
            while j < doc.len() && b"0123456789+-.eE".contains(&doc[j]) {
                j += 1;
            }
            let num = String::from_utf8_lossy(&doc[i..j]).into_owned();
            let ms = m.mask(&num);
            if ms != num {
                out.extend_from_slice(json::quote(&ms).as_bytes());
            } else {
                out.extend_from_slice(num.as_bytes());
            }
            i = j;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

fn self_test() -> Result<(), String> {
    const V: &str = "s3cr3t pa/ss&<é>";
    let m = Masker::new(&[V.to_string()]);
    let hex: String = V.bytes().map(|b| format!("{:02X}", b)).collect();
    let data = json::parse(br#"{"k":"json s3cr3t pa\/ss\u0026\u003c\u00e9>","b64":"eHlzM2NyM3QgcGEvc3MmPMOpPg=="}"#).map_err(|e| e.to_string())?;
    let env = HookResponse {
        result: Some(HookResult {
            text: format!("raw {} url s3cr3t+pa%2Fss%26%3C%C3%A9%3E html s3cr3t pa&#x2F;ss&amp;&lt;&eacute;&gt; cp1252 s3cr3t+pa%2Fss%26%3C%e9%3E sjis s3cr3t+pa%2Fss%26%3C%26%23233%3B%3E", V),
            data: Some(data),
            warnings: vec![format!("hex {}", hex)],
            ..HookResult::default()
        }),
        error: Some(Error { code: abi::CODE_EXECUTION_FAILED.into(), message: format!("failed for {}", V), details: vec![("v".into(), V.into())] }),
    };
    let resp = mask_envelope(&m, &env).map_err(|e| e.message)?;
    let s = resp.to_json();
    for leak in ["s3cr3t", "czNjcjN0", "zNjcjN0", "NjcjN0", "73336372337420", "pa/ss", "%e9", "%26%23233"] {
        if s.contains(leak) {
            return Err(format!("secretmask self-test: {} survived masking: {}", json::quote(leak), s));
        }
    }
    if s.matches(MASK).count() < 9 {
        return Err(format!("secretmask self-test: too few masks in {}", s));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_test_passes() {
        assert_eq!(self_test(), Ok(()));
    }

    #[test]
    fn masks_raw_and_encoded() {
        let m = Masker::new(&["hunter22".to_string()]);
        for s in ["x hunter22 y", "x hunter%322 y", "x h&#117;nter22 y", "x \\u0068unter22 y", "x aHVudGVyMjI= y", "x 68756E7465723232 y"] {
            let got = m.mask(s);
            assert_eq!(got, format!("x {} y", MASK), "{}", s);
        }
        assert_eq!(m.mask("nothing here"), "nothing here");
    }

    // The Go version's TestMaskerReusedForSameValues: built once per set
    // of values, rebuilt when the set changes.
    #[test]
    fn masker_reused_for_same_values() {
        let vs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        let a = with_masker(&vs(&["one-value", "twö"]), |m| m as *const Masker);
        let b = with_masker(&vs(&["one-value", "twö"]), |m| m as *const Masker);
        assert_eq!(a, b, "the same values built a new masker");
        let masked = with_masker(&vs(&["one-value\0twö"]), |m| m.mask("x one-value\0twö"));
        assert_eq!(masked, format!("x {}", MASK), "new values reused the old masker");
    }

    #[test]
    fn a_masked_number_in_a_typed_field_is_withheld() {
        let m = Masker::new(&["404".to_string()]);
        let env = HookResponse { result: Some(HookResult { page: Some(sdk::Page { url: "u".into(), status: 404, ..Default::default() }), ..Default::default() }), error: None };
        let e = mask_envelope(&m, &env).unwrap_err();
        assert!(e.message.contains("no longer fits its shape"), "{}", e.message);
    }
}
