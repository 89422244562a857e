// The wasmwright plugin kit for Rust: the counterpart of plugin-sdk (Go)
// for plugins built with rustc alone (no cargo, no crates: neither extism's
// Rust PDK nor serde can be fetched here). A plugin includes it as a module
// and names itself in a static called PLUGIN at its crate root:
//
//     #[path = "../../plugin-sdk/rust/mod.rs"]
//     mod sdk;
//     pub static PLUGIN: sdk::Plugin = sdk::Plugin { name: "x", ..sdk::Plugin::EMPTY };
//
// On wasm32 the kit then exports what the host calls: the Extism exports
// (describe, call, hook, self_test, over the extism:host/env kernel) and
// the ww_* fast path (ww_abi, ww_alloc, ww_call), both through one
// dispatch (handle), as the Go SDK does. Elsewhere (rustc --test) host
// calls answer not_available and handle runs in-process.

#![allow(dead_code)]

pub mod abi;
pub mod json;

#[cfg(target_arch = "wasm32")]
mod exports;
mod host;

pub use self::abi::{Error, HookRequest, HookResponse, HookResult, Image, Page, SelfTestCase};
pub use self::host::{emit_event, host_info, log, mask_values};

/// Call is the context of one tool or hook call.
#[derive(Clone, Debug, Default)]
pub struct Call {
    pub tool: String,
    pub session: String,
    pub personality: String,
    pub call_id: String,
}

pub type HookFn = fn(&Call, HookRequest) -> Result<HookResponse, Error>;
pub type ToolFn = fn(&Call, &[u8]) -> Result<Vec<u8>, Error>;

/// Tool is one tool: run takes the arguments as raw JSON and returns an
/// abi.Result already encoded as JSON (Go's sdk.RawTool).
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// The JSON Schema of the arguments, as JSON text.
    pub input_schema: &'static str,
    pub read_only: bool,
    pub run: ToolFn,
}

/// Plugin is what describe reports and what the dispatch runs.
pub struct Plugin {
    pub name: &'static str,
    pub version: &'static str,
    pub description: &'static str,
    /// Capabilities the plugin's host calls need ("secrets.mask"...).
    pub needs: &'static [&'static str],
    /// Optional ABI behaviours (abi::FEATURE_RAW_SNAPSHOT...).
    pub features: &'static [&'static str],
    /// The pipeline roles hook fills (abi::ROLE_COMPACT...).
    pub hooks: &'static [&'static str],
    pub hook: Option<HookFn>,
    pub tools: &'static [Tool],
    /// The check the host runs before it swaps the plugin in.
    pub self_test: Option<fn() -> Result<(), String>>,
    /// Fixtures the host runs the real hook on (Go's sdk.SelfTestCases).
    pub cases: Option<fn() -> Vec<SelfTestCase>>,
}

impl Plugin {
    pub const EMPTY: Plugin = Plugin {
        name: "",
        version: "",
        description: "",
        needs: &[],
        features: &[],
        hooks: &[],
        hook: None,
        tools: &[],
        self_test: None,
        cases: None,
    };

    /// describe returns the manifest (abi.Manifest) as JSON.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let mut o = abi::Obj::new(&mut out);
        o.str("name", self.name);
        o.str("version", self.version);
        o.raw("abi", &format!("{{\"major\":{},\"minor\":{}}}", abi::ABI_MAJOR, abi::ABI_MINOR));
        if !self.tools.is_empty() {
            let mut tools: Vec<&Tool> = self.tools.iter().collect();
            tools.sort_by_key(|t| t.name);
            let w = o.key("tools");
            w.push('[');
            for (i, t) in tools.iter().enumerate() {
                if i > 0 {
                    w.push(',');
                }
                let mut to = abi::Obj::new(w);
                to.str("name", t.name);
                to.str("description", t.description);
                to.raw("input_schema", t.input_schema);
                if t.read_only {
                    to.raw("read_only", "true");
                }
                to.end();
            }
            w.push(']');
        }
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        o.strs_nonempty("hooks", &list(self.hooks));
        o.strs_nonempty("capabilities", &list(self.needs));
        o.str_nonempty("description", self.description);
        o.strs_nonempty("features", &list(self.features));
        o.raw("protocols", &format!("{{\"browser\":{{\"major\":{},\"minor\":{}}}}}", abi::BROWSER_MAJOR, abi::BROWSER_MINOR));
        o.end();
        out
    }

    fn self_test_report(&self) -> String {
        let mut out = String::new();
        let mut o = abi::Obj::new(&mut out);
        if let Some(Err(msg)) = self.self_test.map(|f| f()) {
            o.raw("ok", "false");
            o.str("message", &msg);
            o.end();
            return out;
        }
        o.raw("ok", "true");
        let cases = self.cases.map(|f| f()).unwrap_or_default();
        if !cases.is_empty() {
            let w = o.key("cases");
            w.push('[');
            for (i, c) in cases.iter().enumerate() {
                if i > 0 {
                    w.push(',');
                }
                c.write(w);
            }
            w.push(']');
        }
        o.end();
        out
    }

    /// handle runs one operation (abi::OP_*) on its input and returns the
    /// output and whether it is an error. It is the whole dispatch, shared
    /// by the Extism exports and the fast path, and runs natively in tests.
    pub fn handle(&self, op: i32, input: &[u8]) -> (Vec<u8>, bool) {
        let fail = |e: Error| (e.to_json().into_bytes(), true);
        match op {
            abi::OP_DESCRIBE => (self.describe().into_bytes(), false),
            abi::OP_SELF_TEST => (self.self_test_report().into_bytes(), false),
            abi::OP_CALL => {
                let call = match call_header(input) {
                    Ok(c) => c,
                    Err(e) => return fail(e),
                };
                let (c, body) = call;
                match self.tools.iter().find(|t| t.name == c.tool) {
                    None => fail(Error::new(abi::CODE_NOT_FOUND, format!("plugin {} has no tool {}", self.name, json::quote(&c.tool)))),
                    Some(t) => match (t.run)(&c, body) {
                        Ok(out) => (out, false),
                        Err(e) => fail(e),
                    },
                }
            }
            abi::OP_HOOK => {
                let hook = match self.hook {
                    Some(h) => h,
                    None => return fail(Error::new(abi::CODE_NOT_FOUND, format!("plugin {} fills no hook", self.name))),
                };
                let (req, framed) = match abi::read_hook_request(input) {
                    Ok(r) => r,
                    Err(e) => return fail(Error::new(abi::CODE_INPUT_INVALID, format!("hook request: {}", e))),
                };
                let c = Call { tool: req.tool.clone(), session: req.session.clone(), ..Call::default() };
                // A snapshot that came raw goes back raw; a detector's raw
                // page goes one way only.
                let raw = framed && req.role != abi::ROLE_DETECT;
                match hook(&c, req) {
                    Ok(resp) => (resp.encode(raw), false),
                    Err(e) => fail(e),
                }
            }
            _ => fail(Error::new(abi::CODE_INPUT_INVALID, format!("unknown operation {}", op))),
        }
    }
}

// call_header reads a call's frame: the header (abi.CallHeader), then the
// tool's arguments.
fn call_header(input: &[u8]) -> Result<(Call, &[u8]), Error> {
    let bad = |m: String| Error::new(abi::CODE_INPUT_INVALID, m);
    let (h, body) = abi::unframe(input).map_err(bad)?;
    let v = json::parse(h).map_err(|e| bad(format!("abi: frame header: {}", e)))?;
    let field = |k: &str| -> Result<String, Error> {
        match v.get(k) {
            None | Some(json::Value::Null) => Ok(String::new()),
            Some(json::Value::Str(s)) => Ok(s.clone()),
            Some(_) => Err(bad(format!("abi: frame header: field {} is not a string", k))),
        }
    };
    let c = Call { tool: field("tool")?, session: field("session")?, personality: field("personality")?, call_id: field("call_id")? };
    Ok((c, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(_: &Call, req: HookRequest) -> Result<HookResponse, Error> {
        if req.tool == "boom" {
            return Err(Error::new("timeout", "slow"));
        }
        let mut r = req.result.unwrap_or_default();
        r.snapshot = r.snapshot.to_uppercase();
        Ok(HookResponse { result: Some(r), error: req.error })
    }

    fn tool(c: &Call, args: &[u8]) -> Result<Vec<u8>, Error> {
        Ok(format!("{{\"text\":{}}}", json::quote(&format!("{} {} {}", c.tool, c.session, String::from_utf8_lossy(args)))).into_bytes())
    }

    fn case() -> Vec<SelfTestCase> {
        vec![SelfTestCase { name: "n".into(), role: "compact".into(), result: Some(HookResult { snapshot: "s".into(), ..HookResult::default() }), want: String::new() }]
    }

    static P: Plugin = Plugin {
        name: "t",
        version: "1.0.0",
        description: "d",
        needs: &["events"],
        features: &[abi::FEATURE_RAW_SNAPSHOT],
        hooks: &[abi::ROLE_COMPACT],
        hook: Some(echo),
        tools: &[
            Tool { name: "z", description: "zd", input_schema: "{}", read_only: false, run: tool },
            Tool { name: "a", description: "ad", input_schema: "{\"type\":\"object\"}", read_only: true, run: tool },
        ],
        self_test: None,
        cases: Some(case),
    };

    #[test]
    fn describe_is_the_manifest() {
        assert_eq!(
            P.describe(),
            r#"{"name":"t","version":"1.0.0","abi":{"major":1,"minor":0},"tools":[{"name":"a","description":"ad","input_schema":{"type":"object"},"read_only":true},{"name":"z","description":"zd","input_schema":{}}],"hooks":["compact"],"capabilities":["events"],"description":"d","features":["raw_snapshot"],"protocols":{"browser":{"major":1,"minor":0}}}"#
        );
    }

    #[test]
    fn hook_answers_in_the_form_it_was_asked() {
        let (out, err) = P.handle(abi::OP_HOOK, br#"{"role":"compact","tool":"t","result":{"snapshot":"- a"}}"#);
        assert!(!err);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"result":{"snapshot":"- A"}}"#);
        let h = br#"{"role":"compact","tool":"t","result":{"text":"x"}}"#;
        let mut framed = (h.len() as u32).to_le_bytes().to_vec();
        framed.extend_from_slice(h);
        framed.extend_from_slice(b"- b");
        let (out, err) = P.handle(abi::OP_HOOK, &framed);
        assert!(!err);
        let (head, body) = abi::unframe(&out).unwrap();
        assert_eq!((head, body), (&br#"{"result":{"text":"x"}}"#[..], &b"- B"[..]));
    }

    #[test]
    fn errors_are_coded() {
        let (out, err) = P.handle(abi::OP_HOOK, br#"{"role":"compact","tool":"boom"}"#);
        assert!(err);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"code":"timeout","message":"slow"}"#);
        let (out, err) = P.handle(abi::OP_HOOK, b"{\"role\":");
        assert!(err);
        assert!(String::from_utf8(out).unwrap().starts_with(r#"{"code":"input_invalid","message":"hook request: abi: frame header length exceeds"#));
        let (out, err) = P.handle(9, b"");
        assert!(err && String::from_utf8(out).unwrap().contains("unknown operation 9"));
    }

    #[test]
    fn call_runs_the_named_tool() {
        let h = br#"{"tool":"a","session":"s"}"#;
        let mut input = (h.len() as u32).to_le_bytes().to_vec();
        input.extend_from_slice(h);
        input.extend_from_slice(b"{\"k\":1}");
        let (out, err) = P.handle(abi::OP_CALL, &input);
        assert!(!err);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"text":"a s {\"k\":1}"}"#);
        let h = br#"{"tool":"nope"}"#;
        let mut input = (h.len() as u32).to_le_bytes().to_vec();
        input.extend_from_slice(h);
        let (out, err) = P.handle(abi::OP_CALL, &input);
        assert!(err);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"code":"not_found","message":"plugin t has no tool \"nope\""}"#);
    }

    #[test]
    fn self_test_reports_cases_or_the_failure() {
        let (out, _) = P.handle(abi::OP_SELF_TEST, b"");
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"ok":true,"cases":[{"name":"n","role":"compact","result":{"snapshot":"s"}}]}"#);
        fn broken() -> Result<(), String> {
            Err("bad \"x\"".into())
        }
        let p = Plugin { self_test: Some(broken), ..Plugin::EMPTY };
        let (out, _) = p.handle(abi::OP_SELF_TEST, b"");
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"ok":false,"message":"bad \"x\""}"#);
    }

    #[test]
    fn host_calls_off_wasm_are_not_available() {
        let e = mask_values("s").unwrap_err();
        assert_eq!(e.code, abi::CODE_NOT_AVAILABLE);
    }
}
