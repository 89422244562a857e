// From a navigation's page to the detector's answer: the wall, if any, and
// the bot_wall error an agent reads.

use crate::gostr::lossy;
use crate::needles::{Table, BUILT, N_PLACES, SCRIPT, SHOWN};
use crate::page::Page;
use crate::rules::{detect, Wall, ALL};

/// A navigation's page as the hook receives it (text and HTML as bytes:
/// a raw page is not always valid UTF-8).
pub struct PageIn<'a> {
    pub url: &'a [u8],
    pub status: i64,
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
    pub title: &'a [u8],
    pub text: &'a [u8],
    pub html: &'a [u8],
}

/// The bot_wall error: code, message and details (in the Go detector's
/// order of keys; JSON readers do not care).
#[derive(Debug, PartialEq)]
pub struct WallError {
    pub message: String,
    pub details: Vec<(&'static str, String)>,
}

static mut TABLES: Option<&'static [Table; N_PLACES]> = None;

/// The needle tables, built once per instance (one call at a time runs in
/// an instance, and native tests only read them once built).
pub fn tables() -> &'static [Table; N_PLACES] {
    // SAFETY: a plugin instance is single-threaded; in native tests a race
    // would at worst build the tables twice and leak one copy.
    unsafe {
        if let Some(t) = TABLES {
            return t;
        }
        let t: &'static [Table; N_PLACES] = Box::leak(Box::new([Table::new(ALL, SHOWN), Table::new(ALL, BUILT), Table::new(ALL, SCRIPT)]));
        TABLES = Some(t);
        t
    }
}

/// The wall pg is, if any.
pub fn detect_page(pg: &PageIn) -> Option<Wall> {
    let mut p = Page::new(pg.status, &pg.headers, pg.title, pg.text, pg.html, tables());
    p.url = pg.url;
    detect(&mut p)
}

/// The detector's answer for a navigation's page: None for a page, the
/// bot_wall error for a wall.
pub fn check(pg: &PageIn, has_takeover: bool) -> Option<WallError> {
    detect_page(pg).map(|w| wall_error(&w, pg, has_takeover))
}

/// The host of a URL, or "the site".
pub fn host_of(u: &[u8]) -> Vec<u8> {
    let mut s = u;
    if let Some(i) = crate::gostr::index(s, b"://") {
        s = &s[i + 3..];
    }
    if let Some(i) = s.iter().position(|&c| c == b'/' || c == b'?' || c == b'#') {
        s = &s[..i];
    }
    if s.is_empty() {
        return b"the site".to_vec();
    }
    s.to_vec()
}

fn quote_marker(m: &str) -> String {
    if m.starts_with("title ") || m.starts_with("header ") || m.starts_with("HTTP ") || m.starts_with("server: ") {
        return m.to_string();
    }
    format!("`{}`", m.replace('`', "'"))
}

/// The error an agent reads: who blocked, how we know, what was not done,
/// and what to do next.
pub fn wall_error(w: &Wall, pg: &PageIn, takeover: bool) -> WallError {
    let host = lossy(&host_of(pg.url));
    let status = if pg.status != 0 { format!("HTTP {}", pg.status) } else { "unknown status".to_string() };
    let marker = lossy(&w.marker);
    let mut b = if !w.vendor.is_empty() {
        format!("{} is showing a bot wall ({} {}, {}) instead of the page", host, w.vendor, w.kind, status)
    } else {
        format!("{} answered {} with no content we can trust: treated as a bot wall from an unnamed vendor", host, status)
    };
    b.push_str(&format!("; matched {}. The page was not read and nothing was retried.", quote_marker(&marker)));
    if takeover {
        b.push_str(" A person can pass it: call browser_request_takeover so the user completes the check in the live browser, then take a new snapshot.");
    } else {
        b.push_str(" Do not retry in a loop: try another source for this information, or tell the user this site blocks automated browsing.");
    }
    let vendor = if w.vendor.is_empty() { "unknown" } else { w.vendor };
    WallError {
        message: b,
        details: vec![
            ("vendor", vendor.to_string()),
            ("kind", w.kind.to_string()),
            ("status", pg.status.to_string()),
            ("marker", marker),
            ("url", lossy(pg.url)),
        ],
    }
}

const SELF_TEST_WALL: &str = "<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={cType:'managed'}</script></body></html>";
const SELF_TEST_CLEAN: &str = "<html><head><title>Example Domain</title><script src=\"/cdn-cgi/challenge-platform/scripts/jsd/main.js\"></script></head><body><h1>Example Domain</h1><p>This domain is for use in illustrative examples in documents.</p></body></html>";

fn hdrs(kv: &[(&str, &str)]) -> Vec<(Vec<u8>, Vec<u8>)> {
    kv.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect()
}

/// Runs a known wall and a known clean page.
pub fn self_test() -> Result<(), String> {
    let wall = PageIn {
        url: b"",
        status: 403,
        headers: hdrs(&[("server", "cloudflare"), ("cf-mitigated", "challenge")]),
        title: b"Just a moment...",
        text: b"Verifying you are human.",
        html: SELF_TEST_WALL.as_bytes(),
    };
    match detect_page(&wall) {
        Some(w) if w.vendor == "Cloudflare" => {}
        w => return Err(format!("blockdetect self-test: a Cloudflare challenge was not detected (got {:?})", w)),
    }
    let clean = PageIn {
        url: b"",
        status: 200,
        headers: hdrs(&[("server", "cloudflare"), ("cf-ray", "8a1b2c3d4e5f-AMS")]),
        title: b"Example Domain",
        text: b"Example Domain. This domain is for use in illustrative examples in documents.",
        html: SELF_TEST_CLEAN.as_bytes(),
    };
    if let Some(w) = detect_page(&clean) {
        return Err(format!("blockdetect self-test: a clean page behind Cloudflare was called a wall ({:?})", w));
    }
    Ok(())
}
