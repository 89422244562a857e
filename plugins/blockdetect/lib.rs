// The wasmwright detect hook: it recognises bot walls (challenge, captcha
// and block pages of Cloudflare, DataDome, PerimeterX, Akamai, Imperva,
// Kasada, AWS WAF, Sucuri, CloudFront, Distil, Radware and captcha
// interstitials) in a navigation's result and turns the result into a
// bot_wall error, so an agent never mistakes a block page for the page.
//
// It decides from what the page shows and how it is built: only a page
// that holds little (little visible text, few links) can be a wall, and
// then only with its vendor's title, wording, challenge form or frame; a
// marker inside a script only supports, and decides alone only on a page
// that shows and loads nothing else. A vendor's header, script, sensor or
// captcha library on a healthy page (server: cloudflare, a sensor script)
// is not a wall, nor is a page with content served with an error status;
// a near-empty 429 is an unnamed wall.
//
// Written in Rust for a small module (no regular-expression engine, no
// runtime: hand-written matchers, one pass over the document); its
// verdicts are the Go detector's it replaced, case for case.

mod doc;
mod entity_table;
mod gostr;
mod needles;
mod page;
mod re;
mod rules;
mod wall;

pub use wall::{check, host_of, PageIn, WallError};

#[path = "../../plugin-sdk/rust/mod.rs"]
mod sdk;

use sdk::abi;

pub static PLUGIN: sdk::Plugin = sdk::Plugin {
    name: "blockdetect",
    version: "1.0.0",
    description: "Detects bot walls (challenge, captcha and block pages) in navigation results.",
    // The whole page (megabytes) arrives raw, not as JSON strings; a page
    // with more text than a wall shows (WALL_MAX_TEXT) is never a wall,
    // so for one the host sends only the text's start and no HTML.
    features: &[abi::FEATURE_RAW_PAGE, abi::FEATURE_LONG_TEXT_PAGE],
    hooks: &[abi::ROLE_DETECT],
    hook: Some(hook),
    self_test: Some(wall::self_test),
    cases: Some(self_test_cases),
    ..sdk::Plugin::EMPTY
};

fn hook(_: &sdk::Call, req: sdk::HookRequest) -> Result<sdk::HookResponse, sdk::Error> {
    let pg = match req.result.as_ref().and_then(|r| r.page.as_ref()) {
        Some(p) => p,
        // Not a navigation: nothing to look at.
        None => return Ok(sdk::HookResponse::default()),
    };
    let page = PageIn {
        url: pg.url.as_bytes(),
        status: pg.status,
        headers: pg.headers.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect(),
        title: pg.title.as_bytes(),
        text: &pg.text,
        html: &pg.html,
    };
    let error = check(&page, req.has_takeover).map(|w| {
        let mut details: Vec<(String, String)> = w.details.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        // sorted by key, as Go writes a map
        details.sort();
        sdk::Error { code: abi::CODE_BOT_WALL.to_string(), message: w.message, details }
    });
    Ok(sdk::HookResponse { result: None, error })
}

fn case_page(status: i64, headers: &[(&str, &str)], title: &str, text: &str) -> sdk::HookResult {
    let page = sdk::Page {
        url: "https://shop.example/".to_string(),
        status,
        headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        title: title.to_string(),
        text: text.as_bytes().to_vec(),
        html: Vec::new(),
    };
    sdk::HookResult { page: Some(page), ..sdk::HookResult::default() }
}

/// The host runs the real hook on these besides its own wall and normal
/// page (abi.SelfTestCase).
fn self_test_cases() -> Vec<sdk::SelfTestCase> {
    vec![
        sdk::SelfTestCase {
            name: "DataDome block".into(),
            role: abi::ROLE_DETECT.into(),
            result: Some(case_page(403, &[("x-datadome", "protected")], "shop.example", "")),
            want: abi::CODE_BOT_WALL.into(),
        },
        sdk::SelfTestCase {
            name: "healthy page behind Cloudflare".into(),
            role: abi::ROLE_DETECT.into(),
            result: Some(case_page(200, &[("cf-ray", "8a1b2c3d4e5f-AMS"), ("server", "cloudflare")], "Shop", "Welcome to the shop.")),
            want: String::new(),
        },
    ]
}
