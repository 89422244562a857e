// The markers the rules look for, by where they must be found, and the
// signatures that decide from them.

use crate::gostr::{collapse, contains, decode_rune, equal_fold_ascii, quote, to_lower, trim_space};
use crate::needles::{Needles, BUILT, SCRIPT, SHOWN};
use crate::page::{both, either, Page};
use crate::re;

macro_rules! needles {
    ($($name:ident = $at:expr, [$($n:expr),* $(,)?];)*) => {
        $(pub static $name: Needles = Needles { at: $at, list: &[$($n),*] };)*
        /// Every list, for the tables that find them all in one pass.
        pub static ALL: &[&Needles] = &[$(&$name),*];
    };
}

needles! {
    // Cloudflare's challenge and error pages: their own ids, classes and
    // form actions (the challenge form posts to a __cf_chl_ token URL);
    // the old captcha form's action, and not a longer path that starts the
    // same (a reCAPTCHA v3 endpoint chk_captcha_v3).
    CF_BUILT = BUILT, ["__cf_chl_captcha_tk__", "__cf_chl_jschl_tk__", "__cf_chl_f_tk=", "__cf_chl_rt_tk=",
        "cf-browser-verification", "cf-im-under-attack", "cf-challenge-running", "cf-please-wait",
        "cf-hcaptcha-container", "cf_captcha_kind", "cf-turnstile-wrapper", "cf-norobot-container",
        "trk_jschal_js", "trk_captcha_js", "cf_chl_prog",
        "/cdn-cgi/l/chk_jschl\"", "/cdn-cgi/l/chk_jschl?", "/cdn-cgi/l/chk_captcha\"", "/cdn-cgi/l/chk_captcha?", "/cdn-cgi/l/chk_captcha'"];
    CF_CAPTCHA_BUILT = BUILT, ["__cf_chl_captcha_tk__", "cf_captcha_kind", "cf-hcaptcha-container", "cf-norobot-container", "/cdn-cgi/l/chk_captcha\"", "/cdn-cgi/l/chk_captcha?", "/cdn-cgi/l/chk_captcha'"];
    // the old jschl challenge's two hidden inputs, together
    CF_JSCHL_VC = BUILT, ["name=\"jschl_vc\"", "jschl_vc"];
    CF_JSCHL_ANSWER = BUILT, ["jschl_answer"];
    // ids a challenge page shares with others: Cloudflare only with
    // Cloudflare around them
    CHALLENGE_BUILT = BUILT, ["id=\"challenge-form\"", "id=\"challenge-running\"", "id=\"challenge-stage\"", "id=\"challenge-spinner\"",
        "id=\"challenge-error-text\"", "id=\"challenge-body-text\"", "id=\"challenge-success-text\"", "id=\"turnstile-wrapper\""];
    CF_SCRIPT = SCRIPT, ["window._cf_chl_opt", "_cf_chl_opt", "__CF$cv$params", "/cdn-cgi/bm/cv/", "/cdn-cgi/challenge-platform/", "challenges.cloudflare.com"];
    CF_CHL_SCRIPT = SCRIPT, ["window._cf_chl_opt", "_cf_chl_opt", "__CF$cv$params", "/cdn-cgi/bm/cv/"];
    // only on a challenge: its options, its frame, its token URLs
    CF_CHL_OPT = SCRIPT, ["window._cf_chl_opt", "_cf_chl_opt"];
    CF_CHALLENGE_BUILT = BUILT, ["challenges.cloudflare.com", "__cf_chl_", "/cdn-cgi/challenge-platform/h/"];
    // where the orchestration path can be, so its matcher runs only there
    CF_ORCHESTRATE_AT = SCRIPT, ["orchestrate/"];
    CF_ORCHESTRATE_BUILT = BUILT, ["orchestrate/"];
    CF_ERROR_CODE = BUILT, ["class=\"cf-error-code\""];
    CF_AROUND = BUILT, ["/cdn-cgi/", "challenges.cloudflare.com", "cf-wrapper", "cf-error-details"];
    CF_NAMED = SHOWN, ["Cloudflare"];
    CF_SHOWN = SHOWN, ["Checking if the site connection is secure", "needs to review the security of your connection before proceeding",
        "Checking your browser before accessing", "Verifying you are human", "Enable JavaScript and cookies to continue", "DDoS protection by Cloudflare"];
    CF_RAY_ID = SHOWN, ["Ray ID"];

    // DataDome's captcha or device-check frame (not a preconnect link)
    DD_BUILT = BUILT, ["captcha-delivery.com/captcha", "captcha-delivery.com/interstitial"];
    DD_SCRIPT = SCRIPT, ["geo.captcha-delivery.com", "ct.captcha-delivery.com", "captcha-delivery.com"];

    PX_AUTOMATION = SHOWN, ["denied because we believe you are using automation tools"];
    PX_CAPTCHA = BUILT, ["id=\"px-captcha\"", "#px-captcha"];
    PX_SCRIPT = SCRIPT, ["_pxAppId", "captcha.px-cdn.net", "px-cdn.net", "perimeterx"];
    PX_SHOWN = SHOWN, ["Access to this page has been denied", "Press & Hold", "Press and hold"];
    PX_WHY = BUILT, ["www.perimeterx.com/whywasiblocked", "perimeterx.net/whywasiblocked", "perimeterx.com/whywasiblocked"];
    PX_CAPTCHA_JS = SCRIPT, ["captcha.px-cdn.net"];

    AKAMAI_PERMISSION = SHOWN, ["You don't have permission to access"];
    AKAMAI_BUILT = BUILT, ["sec-if-cpt-container", "/_sec/cp_challenge/"];
    AKAMAI_SCRIPT = SCRIPT, ["/_sec/cp_challenge/", "ak-challenge-"];

    INCAP_FRAME = BUILT, ["_Incapsula_Resource?CWUDNSAI="];
    INCAP_SCRIPT = SCRIPT, ["/_Incapsula_Resource"];

    DISTIL_BUILT = BUILT, ["distilCaptchaForm", "distil_r_captcha", "distilIdentificationBlock", "distil_ident", "distil_r_blocked", "cdn.distilnetworks.com/images/anomaly"];
    DISTIL_SCRIPT = SCRIPT, ["distilCallbackGuard", "distil_r_captcha", "dstl-ident", "distil_identify"];
    DISTIL_SHOWN = SHOWN, ["made us think you were a bot", "you were a bot", "As you were browsing something about your browser"];
    // Distil serves three pages under one look: the captcha (its form, a
    // captcha widget, "complete the CAPTCHA"), the identification check (a
    // block and a script that reload the page by themselves) and the block
    // (neither: nothing to pass).
    DISTIL_CAPTCHA = BUILT, ["distilCaptchaForm", "distil_r_captcha"];
    DISTIL_CAPTCHA_AT = SHOWN, ["completing the CAPTCHA", "complete the CAPTCHA", "solve the CAPTCHA"];
    DISTIL_IDENT = BUILT, ["distilIdentificationBlock", "distil_ident", "/distil_identify"];
    DISTIL_IDENT_JS = SCRIPT, ["distilCallbackGuard", "dstl-ident", "distil_identify"];

    // Radware Bot Manager (formerly ShieldSquare): its captcha page is
    // served from, posts to or loads from the vendor's validation host, and
    // names the vendor; its connector script sits on healthy pages.
    RADWARE_BUILT = BUILT, ["validate.perfdrive.com", "perfdrive.com/captcha", "shieldsquare_captcha", "ShieldSquare_Captcha"];
    RADWARE_SHOWN = SHOWN, ["Radware Bot Manager", "ShieldSquare", "request unblock to the website"];
    RADWARE_SCRIPT = SCRIPT, ["validate.perfdrive.com", "perfdrive.com", "shieldsquare"];
    CAPTCHA_SAID = SHOWN, ["captcha", "confirm you are a human", "confirm that you are human", "ticking the box"];

    KASADA_SCRIPT = SCRIPT, ["/ips.js", "KPSDK.scriptStart", "KPSDK"];

    AWS_SCRIPT = SCRIPT, ["window.gokuProps", "gokuProps", "awsWafCookieDomainList"];
    AWS_CAPTCHA_JS = SCRIPT, ["captcha.awswaf.com"];
    AWS_BUILT = BUILT, ["id=\"challenge-container\"", "id=\"captcha-container\""];
    CLOUDFRONT_BLOCK = SHOWN, ["Request blocked."];
    CLOUDFRONT_GEN = SHOWN, ["Generated by cloudfront (CloudFront)"];
    // CloudFront's own error page (every variant: "Bad request.", a country
    // block, a method not allowed, a WAF block) under one title and
    // heading, with the CloudFront footer; the origin's failures (502, 504:
    // CloudFront could not reach the site) are not walls.
    CLOUDFRONT_ERROR = SHOWN, ["The request could not be satisfied"];
    CLOUDFRONT_ORIGIN = SHOWN, ["connection with the origin", "connect to the origin", "origin closed the connection", "origin server did not respond"];

    SUCURI_SHOWN = SHOWN, ["Access Denied - Sucuri Website Firewall", "Sucuri WebSite Firewall - Access Denied", "cloudproxy@sucuri.net"];
    SUCURI_BUILT = BUILT, ["sucuri_firewall_block.css", "sucuri-firewall-block.css"];

    GOOGLE_SHOWN = SHOWN, ["Our systems have detected unusual traffic from your computer network"];
    AMAZON_SHOWN = SHOWN, ["Sorry, we just need to make sure you're not a robot", "Enter the characters you see below"];
    ANUBIS_CODE = SCRIPT, ["anubis_challenge", "techaro.lol-anubis", "within.website/x/cmd/anubis"];
    ANUBIS_SHOWN = SHOWN, ["not a bot"];

    CAPTCHA_ASK = SHOWN, ["verify you are human", "verify that you are human", "verify you are a human",
        "are you a robot", "not a robot", "prove you are human", "checking your browser",
        "checking if the site connection is secure", "complete the security check"];
    CAPTCHA_WIDGET = BUILT, ["g-recaptcha", "h-captcha", "cf-turnstile", "frc-captcha", "hcaptcha.com", "google.com/recaptcha", "arkoselabs.com", "funcaptcha"];
    CAPTCHA_WIDGET_SCRIPT = SCRIPT, ["hcaptcha.com/1/api.js", "recaptcha/api.js", "challenges.cloudflare.com/turnstile", "arkoselabs.com", "funcaptcha"];
}

const RADWARE_TITLE: &[&str] = &["Radware Bot Manager Captcha", "Radware Captcha Page", "ShieldSquare Captcha", "Radware Bot Manager Block", "ShieldSquare Block"];

// Kinds, the same for every vendor:
//   - challenge: an automatic check (script, proof of work) that a real
//     browser passes by itself, given time;
//   - captcha: a check that needs a person (a puzzle, a checkbox, press and
//     hold);
//   - block: access denied; there is nothing to pass.
pub const CHALLENGE: &str = "challenge";
pub const CAPTCHA: &str = "captcha";
pub const BLOCK: &str = "block";

/// Cloudflare 1xxx errors that deny the visitor (as opposed to edge errors
/// such as 1016 origin DNS error).
fn cf_block_code(c: &[u8]) -> bool {
    matches!(c, b"1005" | b"1006" | b"1007" | b"1008" | b"1009" | b"1010" | b"1011" | b"1012" | b"1015" | b"1020" | b"1025")
}

fn s(b: &[u8]) -> Vec<u8> {
    b.to_vec()
}

/// Tells a Cloudflare challenge page that waits for a person from one that
/// passes by itself: the page's cType first (interactive: a box to tick;
/// managed and non-interactive pass by themselves), else a captcha path or
/// form.
fn cf_kind(p: &mut Page) -> &'static str {
    if p.searchable() {
        for sp in p.doc.script.iter() {
            if let Some(t) = re::cf_type(&p.html[sp.lo..sp.hi]) {
                return if t == b"interactive" { CAPTCHA } else { CHALLENGE };
            }
        }
    }
    if !p.has(&CF_CAPTCHA_BUILT).is_empty()
        || (!p.has(&CF_ORCHESTRATE_AT).is_empty() && !p.re(SCRIPT, re::cf_captcha_path).is_empty())
        || (!p.has(&CF_ORCHESTRATE_BUILT).is_empty() && !p.re(BUILT, re::cf_captcha_path).is_empty())
    {
        return CAPTCHA;
    }
    CHALLENGE
}

/// The path of Cloudflare's challenge orchestration script in the page's
/// scripts, or empty; the matcher only where it can match.
fn cf_orchestrate(p: &mut Page) -> Vec<u8> {
    if p.has(&CF_ORCHESTRATE_AT).is_empty() {
        return Vec::new();
    }
    p.re(SCRIPT, re::cf_orchestrate)
}

fn waf_action(p: &Page) -> Vec<u8> {
    to_lower(trim_space(p.header(b"x-amzn-waf-action")))
}

/// The action AWS WAF's header names, else what the page loads.
fn aws_kind(p: &mut Page) -> &'static str {
    match &waf_action(p)[..] {
        b"captcha" => return CAPTCHA,
        b"block" => return BLOCK,
        b"challenge" => return CHALLENGE,
        _ => {}
    }
    if !p.has(&AWS_CAPTCHA_JS).is_empty() || contains(&p.has(&AWS_BUILT), b"captcha") {
        return CAPTCHA;
    }
    CHALLENGE
}

/// Tells Distil's three pages apart by what they carry.
fn distil_kind(p: &mut Page) -> &'static str {
    if !p.has(&DISTIL_CAPTCHA).is_empty() || !p.has(&DISTIL_CAPTCHA_AT).is_empty() || !p.has(&CAPTCHA_WIDGET).is_empty() {
        return CAPTCHA;
    }
    if !p.has(&DISTIL_IDENT).is_empty() || !p.has(&DISTIL_IDENT_JS).is_empty() {
        return CHALLENGE;
    }
    BLOCK
}

/// CloudFront's generated error page: its heading with its footer or
/// CloudFront's response headers around it, unless it says the origin
/// failed (the site is down, not walled).
fn cloudfront_error_page(p: &mut Page) -> Vec<u8> {
    let e = p.has(&CLOUDFRONT_ERROR);
    if e.is_empty() || !p.has(&CLOUDFRONT_ORIGIN).is_empty() || p.status == 502 || p.status == 504 {
        return Vec::new();
    }
    let gen = p.has(&CLOUDFRONT_GEN);
    both(e, either(vec![gen, cloudfront_headers(p)]))
}

/// The CloudFront response header a page came with, or empty.
fn cloudfront_headers(p: &Page) -> Vec<u8> {
    for k in ["x-amz-cf-id", "x-amz-cf-pop"] {
        if !p.header(k.as_bytes()).is_empty() {
            return [&b"header "[..], k.as_bytes()].concat();
        }
    }
    let v = to_lower(p.header(b"x-cache"));
    if contains(&v, b"cloudfront") {
        return [&b"header x-cache: "[..], &v].concat();
    }
    let v = to_lower(p.header(b"via"));
    if contains(&v, b"(cloudfront)") {
        return [&b"header via: "[..], &v].concat();
    }
    Vec::new()
}

/// Radware Bot Manager's captcha or block page: served from the vendor's
/// validation host, titled by the vendor, or naming it with its validation
/// host or a captcha in the markup; its connector script alone decides
/// only on a stub.
fn radware_wall(p: &mut Page) -> Vec<u8> {
    let h = crate::host_of(p.url);
    if h.ends_with(b".perfdrive.com") {
        return [&b"served from "[..], &h].concat();
    }
    let t = p.title_is(RADWARE_TITLE);
    if !t.is_empty() {
        return t;
    }
    let b = p.has(&RADWARE_BUILT);
    if !b.is_empty() {
        let e = either(vec![p.has(&RADWARE_SHOWN), p.has(&CAPTCHA_WIDGET), p.has(&CAPTCHA_SAID)]);
        return both(b, e);
    }
    // Named only in the text: not on a page with fields of its own to fill
    // in (a login form that says the vendor protects it).
    let n = p.has(&RADWARE_SHOWN);
    if !n.is_empty() && p.doc.links <= 2 && p.doc.fields == 0 {
        let e = either(vec![p.has(&CAPTCHA_WIDGET), p.has(&RADWARE_SCRIPT)]);
        return both(n, e);
    }
    if p.stub() {
        return p.has(&RADWARE_SCRIPT);
    }
    Vec::new()
}

/// A page with a captcha to solve, else a block.
fn radware_kind(p: &mut Page) -> &'static str {
    if !p.has(&CAPTCHA_WIDGET).is_empty() || !p.has(&CAPTCHA_WIDGET_SCRIPT).is_empty() || !p.has(&CAPTCHA_SAID).is_empty() || !p.has(&RADWARE_BUILT).is_empty() {
        return CAPTCHA;
    }
    BLOCK
}

/// Evidence that a page comes from Cloudflare: its server header, its name
/// on the page, or its paths in the markup.
fn cloudflare_around(p: &mut Page) -> Vec<u8> {
    if to_lower(p.header(b"server")).starts_with(b"cloudflare") {
        return s(b"server: cloudflare");
    }
    either(vec![p.has(&CF_AROUND), p.has(&CF_SCRIPT), p.has(&CF_NAMED)])
}

type Match = fn(&mut Page) -> Vec<u8>;
type KindOf = fn(&mut Page) -> &'static str;

/// One named signature: a vendor, a kind and a test that returns the
/// marker it matched. kind_of, when set, reads the kind from the page (one
/// vendor page type serves both a challenge and a captcha).
pub struct Sig {
    pub vendor: &'static str,
    pub kind: &'static str,
    pub matches: Match,
    pub kind_of: Option<KindOf>,
}

macro_rules! sig {
    ($vendor:expr, $kind:expr, $matches:expr, $kind_of:expr $(,)?) => {
        Sig { vendor: $vendor, kind: $kind, matches: $matches, kind_of: $kind_of }
    };
}

/// Signatures that decide from a response header the vendor sends on its
/// walls alone, so they apply to a page of any size.
pub static HEADER_SIGNATURES: &[Sig] = &[
    // Cloudflare documents cf-mitigated: challenge on every challenge page.
    sig!("Cloudflare", CHALLENGE, |p| {
        if equal_fold_ascii(trim_space(p.header(b"cf-mitigated")), b"challenge") {
            return s(b"header cf-mitigated: challenge");
        }
        Vec::new()
    }, Some(cf_kind)),
    sig!("AWS WAF", CHALLENGE, |p| {
        let a = waf_action(p);
        if a == b"captcha" || a == b"challenge" || a == b"block" {
            return [&b"header x-amzn-waf-action: "[..], &a].concat();
        }
        Vec::new()
    }, Some(aws_kind)),
    sig!("Sucuri", BLOCK, |p| {
        let v = p.header(b"x-sucuri-block");
        if !v.is_empty() {
            return [&b"header x-sucuri-block: "[..], v].concat();
        }
        Vec::new()
    }, None),
];

fn cf_just_a_moment(p: &mut Page) -> Vec<u8> {
    // The title alone is a common phrase: it needs Cloudflare around it.
    let t = p.title_is(&["Please Wait... | Cloudflare"]);
    if !t.is_empty() {
        return t;
    }
    let t = p.title_is(&["Just a moment..."]);
    if !t.is_empty() {
        let a = cloudflare_around(p);
        if !a.is_empty() {
            if a == b"server: cloudflare" {
                return [&t[..], b" from server: cloudflare"].concat();
            }
            return [&t[..], b" with ", &a].concat();
        }
    }
    Vec::new()
}

fn cf_error_page(p: &mut Page) -> Vec<u8> {
    // the error page's code span (read from the document: its number is
    // text)
    if !p.has(&CF_ERROR_CODE).is_empty() {
        if let Some((m, code)) = re::cf_error_code(p.html) {
            if cf_block_code(code) {
                return s(m);
            }
        }
    }
    if contains(&p.title, b"used Cloudflare to restrict access") {
        return [&b"title "[..], &quote(&p.title)].concat();
    }
    let m = p.re(SHOWN, re::cf_block_error);
    if !m.is_empty() && !p.has(&CF_NAMED).is_empty() && !p.has(&CF_RAY_ID).is_empty() {
        return m;
    }
    Vec::new()
}

fn cf_challenge_wording(p: &mut Page) -> Vec<u8> {
    // A challenge page's ids or wording, with Cloudflare's challenge itself
    // around them (its options, its frame, its token URLs): not the
    // bot-management or email-protection scripts Cloudflare puts on every
    // page of a site, where a post may quote the wording.
    let said = either(vec![p.has(&CHALLENGE_BUILT), p.has(&CF_SHOWN)]);
    if said.is_empty() {
        return Vec::new();
    }
    let around = either(vec![p.has(&CF_CHL_OPT), p.has(&CF_CHALLENGE_BUILT), cf_orchestrate(p)]);
    both(said, around)
}

fn stub_or_empty(p: &mut Page, ns: &Needles) -> Vec<u8> {
    if p.stub() {
        p.has(ns)
    } else {
        Vec::new()
    }
}

/// Signatures, most specific first. Each applies only to a page that
/// holds little (Page::little), and decides from what it shows (title,
/// visible text) or how it is built (a challenge form, a captcha frame, a
/// wall's ids). A marker inside a script only supports: it decides alone
/// only on a stub, a page that shows and loads nothing else (Page::stub).
pub static SIGNATURES: &[Sig] = &[
    sig!("Cloudflare", CAPTCHA, |p| p.title_is(&["Attention Required! | Cloudflare"]), None),
    sig!("Cloudflare", CHALLENGE, cf_just_a_moment, Some(cf_kind)),
    sig!("Cloudflare", CHALLENGE, |p| p.has(&CF_BUILT), Some(cf_kind)),
    sig!("Cloudflare", CHALLENGE, |p| {
        let (a, b) = (p.has(&CF_JSCHL_VC), p.has(&CF_JSCHL_ANSWER));
        both(a, b)
    }, Some(cf_kind)),
    sig!("Cloudflare", BLOCK, cf_error_page, None),
    sig!("Cloudflare", CHALLENGE, cf_challenge_wording, Some(cf_kind)),
    // A challenge or Bot Fight Mode stub: the challenge script and nothing
    // else. The same script on a page with content is not a wall.
    sig!("Cloudflare", CHALLENGE, |p| {
        if !p.stub() {
            return Vec::new();
        }
        let a = p.has(&CF_CHL_SCRIPT);
        either(vec![a, cf_orchestrate(p)])
    }, Some(cf_kind)),
    // the captcha or device-check frame
    sig!("DataDome", CAPTCHA, |p| {
        let m = p.has(&DD_BUILT);
        if !m.is_empty() {
            return m;
        }
        stub_or_empty(p, &DD_SCRIPT)
    }, None),
    sig!("DataDome", BLOCK, |p| {
        if !p.header(b"x-datadome").is_empty() && p.stub() && (p.status == 403 || p.status == 405 || p.status == 429) {
            return format!("header x-datadome on HTTP {} with an empty page", p.status).into_bytes();
        }
        Vec::new()
    }, None),
    sig!("PerimeterX (HUMAN)", CAPTCHA, |p| p.has(&PX_AUTOMATION), None),
    sig!("PerimeterX (HUMAN)", CAPTCHA, |p| p.has(&PX_WHY), None),
    sig!("PerimeterX (HUMAN)", CAPTCHA, |p| {
        let c = p.has(&PX_CAPTCHA);
        if c.is_empty() {
            return c;
        }
        let e = either(vec![p.has(&PX_SHOWN), p.has(&PX_SCRIPT)]);
        both(c, e)
    }, None),
    sig!("PerimeterX (HUMAN)", CAPTCHA, |p| stub_or_empty(p, &PX_CAPTCHA_JS), None),
    // Akamai's edge deny page; the same Reference # on "Invalid URL" (a
    // 400-type edge error, reference #9.x) is not a wall.
    sig!("Akamai", BLOCK, |p| {
        let r = p.re(SHOWN, re::akamai_ref);
        both(r, p.has(&AKAMAI_PERMISSION))
    }, None),
    sig!("Akamai", CHALLENGE, |p| {
        let m = p.has(&AKAMAI_BUILT);
        if !m.is_empty() {
            return m;
        }
        stub_or_empty(p, &AKAMAI_SCRIPT)
    }, None),
    sig!("Imperva (Incapsula)", BLOCK, |p| p.re(SHOWN, re::incap_incident), None),
    // the block page's frame; its fallback text names the incident
    sig!("Imperva (Incapsula)", BLOCK, |p| {
        let m = p.has(&INCAP_FRAME);
        if m.is_empty() {
            return m;
        }
        either(vec![p.re(BUILT, re::incap_incident), m])
    }, None),
    sig!("Imperva (Incapsula)", CHALLENGE, |p| stub_or_empty(p, &INCAP_SCRIPT), None),
    sig!("Distil Networks (Imperva)", CAPTCHA, |p| p.has(&DISTIL_BUILT), Some(distil_kind)),
    sig!("Imperva (Distil)", CAPTCHA, |p| {
        let t = p.title_is(&["Pardon Our Interruption", "Pardon Our Interruption..."]);
        if t.is_empty() {
            return t;
        }
        let e = either(vec![p.has(&DISTIL_SHOWN), p.has(&DISTIL_SCRIPT)]);
        both(t, e)
    }, Some(distil_kind)),
    sig!("Kasada", CHALLENGE, |p| {
        if p.stub() || p.status == 429 {
            return p.has(&KASADA_SCRIPT);
        }
        Vec::new()
    }, None),
    sig!("AWS WAF", CHALLENGE, |p| {
        if p.stub() {
            return p.has(&AWS_SCRIPT);
        }
        let b = p.has(&AWS_BUILT);
        if !b.is_empty() {
            return both(p.has(&AWS_SCRIPT), b);
        }
        Vec::new()
    }, Some(aws_kind)),
    sig!("AWS WAF (CloudFront)", BLOCK, |p| {
        let a = p.has(&CLOUDFRONT_BLOCK);
        both(a, p.has(&CLOUDFRONT_GEN))
    }, None),
    sig!("AWS CloudFront", BLOCK, cloudfront_error_page, None),
    sig!("Radware Bot Manager (ShieldSquare)", CAPTCHA, radware_wall, Some(radware_kind)),
    sig!("Sucuri", BLOCK, |p| {
        let a = p.has(&SUCURI_SHOWN);
        either(vec![a, p.has(&SUCURI_BUILT)])
    }, None),
    sig!("DDoS-Guard", CHALLENGE, |p| {
        let t = p.title_is(&["DDoS-Guard", "DDOS-GUARD"]);
        if !t.is_empty() {
            return t;
        }
        if equal_fold_ascii(p.header(b"server"), b"ddos-guard") && p.stub() {
            return s(b"server: ddos-guard with an empty page");
        }
        Vec::new()
    }, None),
    // Captcha interstitials of the big sites.
    sig!("Google", CAPTCHA, |p| p.has(&GOOGLE_SHOWN), None),
    sig!("Amazon", CAPTCHA, |p| {
        let t = p.title_is(&["Robot Check", "Amazon.com", "Sorry! Something went wrong!"]);
        both(t, p.has(&AMAZON_SHOWN))
    }, None),
    sig!("Anubis", CHALLENGE, |p| {
        if p.stub() || !p.has(&ANUBIS_SHOWN).is_empty() {
            return p.has(&ANUBIS_CODE);
        }
        Vec::new()
    }, None),
    // An unbranded captcha interstitial: a page that asks to prove you are
    // human, carries a captcha widget, and has nothing else to fill in or
    // follow (a login or contact form with a captcha is a page).
    sig!("captcha interstitial", CAPTCHA, |p| {
        if p.text_runes > 600 || p.doc.links > 5 || p.doc.fields > 0 {
            return Vec::new();
        }
        let ask = p.has(&CAPTCHA_ASK);
        if ask.is_empty() {
            return ask;
        }
        let e = either(vec![p.has(&CAPTCHA_WIDGET), p.has(&CAPTCHA_WIDGET_SCRIPT)]);
        both(ask, e)
    }, None),
];

/// A detected block page.
#[derive(Debug, PartialEq)]
pub struct Wall {
    /// "Cloudflare", or "" for an unnamed wall (bare status)
    pub vendor: &'static str,
    pub kind: &'static str,
    /// the exact thing that matched
    pub marker: Vec<u8>,
}

/// The wall a page is, if any.
pub fn detect(p: &mut Page) -> Option<Wall> {
    let little = p.little();
    let sigs = HEADER_SIGNATURES.iter().chain(if little { SIGNATURES } else { &[] }.iter());
    for sg in sigs {
        let m = (sg.matches)(p);
        if !m.is_empty() {
            let kind = match sg.kind_of {
                Some(k) => k(p),
                None => sg.kind,
            };
            return Some(Wall { vendor: sg.vendor, kind, marker: clip(&m, 160) });
        }
    }
    // A rate limit that says nothing else. A bare 403 or 503 is not a wall:
    // a site's own error page, or a page served with the wrong status,
    // shows content of its own.
    if p.status == 429 && little && p.text_runes < 200 {
        return Some(Wall { vendor: "", kind: BLOCK, marker: s(b"HTTP 429 with no vendor signature") });
    }
    None
}

/// s's words joined by single spaces, cut to n runes (an ellipsis added).
fn clip(s: &[u8], n: usize) -> Vec<u8> {
    let s = collapse(s);
    if s.len() <= n {
        return s;
    }
    let mut runes = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        runes.push(r);
        i += w;
    }
    if runes.len() <= n {
        return s;
    }
    let mut out = Vec::new();
    for &r in &runes[..n] {
        crate::gostr::push_rune(&mut out, r);
    }
    out.extend_from_slice("…".as_bytes());
    out
}
