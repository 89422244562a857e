// snapcompact is the wasmwright compact hook: it rewrites a page's
// Playwright ARIA snapshot (ai mode) into the most token-thrifty text an
// agent can still act on. Every interactive element keeps its ref, role and
// accessible name; wrappers, link URLs and repeated text go; long runs of
// near-identical items fold into one line that says how to unfold them (a
// scoped browser_snapshot of the list's ref). Link URLs come back on
// request: links (every link's [url=...]) or link_filter (only the
// matching links, listed with their URLs).
//
// Rust, on the kit in plugin-sdk/rust: the module is a tenth of the Go
// one's size, so the host compiles it in a fraction of the time and
// memory. Its output is the Go version's, byte for byte (parity_test.go
// beside it drives the built module through the sandbox).
//
// Build: make plugins (rustc, RUST_WASM_FLAGS), or
// /usr/bin/rustc --edition 2021 --target wasm32-wasi --crate-type cdylib -C opt-level=s -C lto -C strip=symbols -o snapcompact.wasm lib.rs

#[path = "../../plugin-sdk/rust/mod.rs"]
mod sdk;

mod aria;
mod compact;
mod goquote;
mod isprint;

use compact::{compact_snapshot, equal_fold, Options};
use sdk::json::Value;

pub static PLUGIN: sdk::Plugin = sdk::Plugin {
    name: "snapcompact",
    version: "1.0.0",
    description: "Compacts ARIA snapshots: keeps every actionable ref, drops wrappers and URLs, folds long lists.",
    // active_mark: [active] decides nothing but where it shows (attributes
    // are copied in order; folding, inlining and dropping read roles and
    // names), so the host may move it in an answer it holds
    // (compact_test.go checks it over the saved snapshots).
    features: &[sdk::abi::FEATURE_RAW_SNAPSHOT, sdk::abi::FEATURE_ACTIVE_MARK],
    hooks: &[sdk::abi::ROLE_COMPACT],
    hook: Some(hook),
    self_test: Some(self_test),
    ..sdk::Plugin::EMPTY
};

fn hook(_: &sdk::Call, req: sdk::HookRequest) -> Result<sdk::HookResponse, sdk::Error> {
    let mut res = match req.result {
        Some(r) if !r.snapshot.is_empty() => r,
        _ => return Ok(sdk::HookResponse::default()),
    };
    let o = match &req.args {
        Some(a) => view_options(a),
        None => Options::default(),
    };
    res.snapshot = compact_snapshot(&res.snapshot, &o);
    Ok(sdk::HookResponse { result: Some(res), error: req.error })
}

/// view_options reads the call's arguments that say how its snapshot is
/// shown (browser_snapshot's ref, links and link_filter) as the Go version
/// read them with encoding/json: keys matched case-insensitively, the last
/// one winning, null leaving a field alone, and any field of the wrong
/// type (or arguments that are not an object) leaving every option at its
/// default.
fn view_options(args: &Value) -> Options {
    let mut o = Options::default();
    let members = match args {
        Value::Object(m) => m,
        _ => return o,
    };
    let (mut r, mut links, mut filter) = (String::new(), false, String::new());
    for (k, v) in members {
        let field = ["ref", "links", "link_filter"].iter().position(|f| equal_fold(k, f));
        match (field, v) {
            (None, _) | (_, Value::Null) => {}
            (Some(0), Value::Str(s)) => r = s.clone(),
            (Some(1), Value::Bool(b)) => links = *b,
            (Some(2), Value::Str(s)) => filter = s.clone(),
            _ => return o,
        }
    }
    o.scope_ref = r.trim().to_string();
    o.links = links;
    o.link_filter = filter.trim().to_string();
    o
}

const SELF_TEST_SNAPSHOT: &str = "- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - link \"Home\" [ref=e3] [cursor=pointer]:
      - /url: https://example.test/
    - textbox \"Search\" [ref=e4]:
      - /placeholder: Search the site
  - paragraph [ref=e5]:
    - text: Hello
    - strong [ref=e6]: world
";

fn self_test() -> Result<(), String> {
    let got = compact_snapshot(SELF_TEST_SNAPSHOT, &Options::default());
    let want = "- banner:\n  - link \"Home\" [ref=e3]\n  - textbox \"Search\" [ref=e4] [placeholder=\"Search the site\"]\nHello world";
    if got != want {
        return Err(format!("snapcompact self-test: got {}, want {}", sdk::json::quote(&got), sdk::json::quote(want)));
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
    fn view_options_read_like_encoding_json() {
        let o = view_options(&sdk::json::parse(br#"{"REF":" e2 ","links":true,"Link_Filter":" x ","other":[1]}"#).unwrap());
        assert_eq!((o.scope_ref.as_str(), o.links, o.link_filter.as_str()), ("e2", true, "x"));
        let o = view_options(&sdk::json::parse(br#"{"ref":"e2","links":"yes"}"#).unwrap());
        assert_eq!((o.scope_ref.as_str(), o.links), ("", false));
        let o = view_options(&sdk::json::parse(br#"{"ref":null,"ref":"e3"}"#).unwrap());
        assert_eq!(o.scope_ref, "e3");
        assert_eq!(view_options(&sdk::json::parse(b"[1]").unwrap()).scope_ref, "");
    }

    #[test]
    fn hook_keeps_the_rest_of_the_result() {
        let req = sdk::HookRequest {
            role: "compact".into(),
            result: Some(sdk::HookResult { text: "ok".into(), snapshot: SELF_TEST_SNAPSHOT.into(), warnings: vec!["w".into()], ..Default::default() }),
            error: Some(sdk::Error::new("timeout", "t")),
            ..Default::default()
        };
        let resp = hook(&sdk::Call::default(), req).unwrap();
        let r = resp.result.unwrap();
        assert_eq!((r.text.as_str(), r.warnings.len(), resp.error.unwrap().code.as_str()), ("ok", 1, "timeout"));
        assert!(r.snapshot.starts_with("- banner:"));
        let empty = hook(&sdk::Call::default(), sdk::HookRequest::default()).unwrap();
        assert_eq!(empty, sdk::HookResponse::default());
    }
}
