// The few patterns the rules need, each a hand-written matcher with the
// leftmost-first semantics of the regular expression it replaces (noted
// above it; \s is [\t\n\f\r ], \d [0-9], \b an ASCII word boundary). Each
// starts only where its literal head occurs and never backtracks past
// runs that cannot hold another head: linear in the text.

use crate::gostr::{decode_rune, index};

fn is_re_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | 0x0C | b'\r' | b' ')
}

fn skip_space(h: &[u8], mut i: usize) -> usize {
    while i < h.len() && is_re_space(h[i]) {
        i += 1;
    }
    i
}

fn skip_while(h: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < h.len() && f(h[i]) {
        i += 1;
    }
    i
}

/// Every start of head in h, in order.
fn heads<'h>(h: &'h [u8], head: &'static [u8]) -> impl Iterator<Item = usize> + 'h {
    let mut from = 0;
    std::iter::from_fn(move || {
        let k = index(&h[from.min(h.len())..], head)? + from;
        from = k + 1;
        Some(k)
    })
}

fn lit(h: &[u8], i: usize, l: &[u8]) -> Option<usize> {
    if h.len() >= i + l.len() && &h[i..i + l.len()] == l {
        Some(i + l.len())
    } else {
        None
    }
}

/// `cType:\s*['"]([a-z-]+)['"]`: the group.
pub fn cf_type(h: &[u8]) -> Option<&[u8]> {
    heads(h, b"cType:").find_map(|k| {
        let i = skip_space(h, k + 6);
        if i >= h.len() || !(h[i] == b'\'' || h[i] == b'"') {
            return None;
        }
        let j = skip_while(h, i + 1, |c| c.is_ascii_lowercase() || c == b'-');
        if j == i + 1 || j >= h.len() || !(h[j] == b'\'' || h[j] == b'"') {
            return None;
        }
        Some(&h[i + 1..j])
    })
}

const CF_PLATFORM: &[u8] = b"/cdn-cgi/challenge-platform/";

/// `/cdn-cgi/challenge-platform/\S{0,80}?` followed by tail (which returns
/// where its match ends): the whole match.
fn cf_platform_then(h: &[u8], tail: impl Fn(&[u8], usize) -> Option<usize>) -> Option<&[u8]> {
    heads(h, CF_PLATFORM).find_map(|k| {
        let mut q = k + CF_PLATFORM.len();
        for n in 0..=80 {
            if let Some(e) = tail(h, q) {
                return Some(&h[k..e]);
            }
            if n == 80 || q >= h.len() || is_re_space(h[q]) {
                return None;
            }
            q += decode_rune(&h[q..]).1;
        }
        None
    })
}

/// `/cdn-cgi/challenge-platform/\S{0,80}?orchestrate/(?:captcha|managed)/`
pub fn cf_captcha_path(h: &[u8]) -> Option<&[u8]> {
    cf_platform_then(h, |h, q| {
        let i = lit(h, q, b"orchestrate/")?;
        lit(h, i, b"captcha/").or_else(|| lit(h, i, b"managed/"))
    })
}

/// `/cdn-cgi/challenge-platform/\S{0,80}?orchestrate/[a-z]+/v\d`
pub fn cf_orchestrate(h: &[u8]) -> Option<&[u8]> {
    cf_platform_then(h, |h, q| {
        let i = lit(h, q, b"orchestrate/")?;
        let j = skip_while(h, i, |c| c.is_ascii_lowercase());
        if j == i {
            return None;
        }
        let e = lit(h, j, b"/v")?;
        if e < h.len() && h[e].is_ascii_digit() {
            Some(e + 1)
        } else {
            None
        }
    })
}

/// `<span class="cf-error-code">(\d{4})</span>`: the match and its group.
pub fn cf_error_code(h: &[u8]) -> Option<(&[u8], &[u8])> {
    const HEAD: &[u8] = b"<span class=\"cf-error-code\">";
    heads(h, HEAD).find_map(|k| {
        let i = k + HEAD.len();
        if h.len() < i + 4 || !h[i..i + 4].iter().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let e = lit(h, i + 4, b"</span>")?;
        Some((&h[k..e], &h[i..i + 4]))
    })
}

/// `Error\s*(?:code\s*)?(100[5-9]|101[0-2]|1015|1020|1025)\b`
pub fn cf_block_error(h: &[u8]) -> Option<&[u8]> {
    heads(h, b"Error").find_map(|k| {
        let mut i = skip_space(h, k + 5);
        if let Some(j) = lit(h, i, b"code") {
            i = skip_space(h, j);
        }
        if h.len() < i + 4 {
            return None;
        }
        let code = &h[i..i + 4];
        let ok = matches!(code, b"1005" | b"1006" | b"1007" | b"1008" | b"1009" | b"1010" | b"1011" | b"1012" | b"1015" | b"1020" | b"1025");
        let e = i + 4;
        let boundary = e == h.len() || !(h[e].is_ascii_alphanumeric() || h[e] == b'_');
        if ok && boundary {
            Some(&h[k..e])
        } else {
            None
        }
    })
}

fn is_hex_lower(c: u8) -> bool {
    c.is_ascii_digit() || (b'a'..=b'f').contains(&c)
}

/// `Reference\s*#\s*18\.[0-9a-f]+\.\d+\.[0-9a-f]+`
pub fn akamai_ref(h: &[u8]) -> Option<&[u8]> {
    heads(h, b"Reference").find_map(|k| {
        let i = skip_space(h, k + 9);
        let i = lit(h, i, b"#")?;
        let i = skip_space(h, i);
        let i = lit(h, i, b"18.")?;
        let j = skip_while(h, i, is_hex_lower);
        if j == i {
            return None;
        }
        let i = lit(h, j, b".")?;
        let j = skip_while(h, i, |c| c.is_ascii_digit());
        if j == i {
            return None;
        }
        let i = lit(h, j, b".")?;
        let j = skip_while(h, i, is_hex_lower);
        if j == i {
            return None;
        }
        Some(&h[k..j])
    })
}

/// `Incapsula incident ID:?\s*[0-9-]+`
pub fn incap_incident(h: &[u8]) -> Option<&[u8]> {
    const HEAD: &[u8] = b"Incapsula incident ID";
    heads(h, HEAD).find_map(|k| {
        let mut i = k + HEAD.len();
        if i < h.len() && h[i] == b':' {
            i += 1;
        }
        let i = skip_space(h, i);
        let j = skip_while(h, i, |c| c.is_ascii_digit() || c == b'-');
        if j == i {
            None
        } else {
            Some(&h[k..j])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(o: Option<&[u8]>) -> &str {
        o.map(|b| std::str::from_utf8(b).unwrap()).unwrap_or("")
    }

    #[test]
    fn matchers() {
        assert_eq!(s(cf_type(b"x cType: 'Bad' cType:\n \"managed-x\" ")), "managed-x");
        assert_eq!(s(cf_type(b"cType:''")), "");
        let p = b"a=\"/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1?ray=1\"";
        assert_eq!(s(cf_orchestrate(p)), "/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1");
        assert_eq!(s(cf_captcha_path(p)), "");
        assert_eq!(s(cf_captcha_path(b"/cdn-cgi/challenge-platform/h/g/orchestrate/managed/v1")), "/cdn-cgi/challenge-platform/h/g/orchestrate/managed/");
        // the gap is at most 80 runes and holds no space
        let far = format!("/cdn-cgi/challenge-platform/{}orchestrate/jsch/v1", "é".repeat(80));
        assert!(cf_orchestrate(far.as_bytes()).is_some());
        let too_far = format!("/cdn-cgi/challenge-platform/{}orchestrate/jsch/v1", "é".repeat(81));
        assert!(cf_orchestrate(too_far.as_bytes()).is_none());
        assert!(cf_orchestrate(b"/cdn-cgi/challenge-platform/h b/orchestrate/jsch/v1").is_none());
        assert_eq!(s(cf_block_error(b"Error 1016 then Error code\n1020.")), "Error code\n1020");
        assert_eq!(s(cf_block_error(b"Error 10200")), "");
        assert_eq!(s(cf_block_error(b"Error 1015_")), "");
        assert_eq!(cf_error_code(b"<span class=\"cf-error-code\">1020</span>").map(|m| m.1), Some(&b"1020"[..]));
        assert_eq!(s(akamai_ref(b"Reference #18.37012417.1611350521.17df644 x")), "Reference #18.37012417.1611350521.17df644");
        assert_eq!(s(akamai_ref(b"Reference #9.cd747e68.1611347221.fafe7a0")), "");
        assert_eq!(s(incap_incident(b"Incapsula incident ID: 1490-78 x")), "Incapsula incident ID: 1490-78");
        assert_eq!(s(incap_incident(b"Incapsula incident ID 5")), "Incapsula incident ID 5");
    }
}
