// Where a marker is looked for. A page's evidence comes in three kinds,
// and a rule says which kind it trusts:
//   - shown: the title and the visible text, what a person sees;
//   - built: the page's elements outside scripts (tag names and
//     attributes: a challenge form, a captcha frame, a wall's ids);
//   - script: inline scripts and the URLs of loaded scripts, which a
//     vendor's sensor puts on healthy pages too: supporting evidence only.

use crate::doc::Span;
use crate::gostr::{ascii_lower, lower_byte};

pub const SHOWN: usize = 0;
pub const BUILT: usize = 1;
pub const SCRIPT: usize = 2;
pub const N_PLACES: usize = 3;

/// A list of markers of one place, in the order a rule prefers them.
/// Shown markers are matched ignoring ASCII case (pages differ in case,
/// not in wording); built and script ones exactly.
pub struct Needles {
    pub at: usize,
    pub list: &'static [&'static str],
}

/// One place's needles, found in one pass: grouped by their first two
/// bytes (lower-cased for the folding table), looked up per position, so
/// the cost per byte is a table look-up whatever the number of needles.
pub struct Table {
    fold: bool,
    /// by first two bytes: 0, or 1 + the group in grp
    idx: Vec<u16>,
    /// needle ids sharing their first two bytes
    grp: Vec<Vec<usize>>,
    pub needles: Vec<Vec<u8>>,
    /// needle to id, sorted by needle: a search, not a hash map (whose
    /// random seed would make a call's work differ run to run)
    ids: Vec<(Vec<u8>, usize)>,
}

impl Table {
    pub fn new(lists: &[&Needles], at: usize) -> Table {
        let fold = at == SHOWN;
        let mut t = Table { fold, idx: vec![0; 1 << 16], grp: Vec::new(), needles: Vec::new(), ids: Vec::new() };
        for ns in lists.iter().filter(|ns| ns.at == at) {
            for n in ns.list {
                let n = if fold { ascii_lower(n.as_bytes()) } else { n.as_bytes().to_vec() };
                if n.len() < 2 || t.needles.contains(&n) {
                    continue;
                }
                let id = t.needles.len();
                let k = ((n[0] as usize) << 8) | n[1] as usize;
                if t.idx[k] == 0 {
                    t.grp.push(Vec::new());
                    t.idx[k] = t.grp.len() as u16;
                }
                t.grp[t.idx[k] as usize - 1].push(id);
                t.ids.push((n.clone(), id));
                t.needles.push(n);
            }
        }
        t.ids.sort();
        t
    }

    /// The id of needle n (as written in a list), if registered.
    pub fn id(&self, n: &str) -> Option<usize> {
        let key = if self.fold { ascii_lower(n.as_bytes()) } else { n.as_bytes().to_vec() };
        self.ids.binary_search_by(|(k, _)| k.cmp(&key)).ok().map(|i| self.ids[i].1)
    }

    /// Where each needle first occurs in doc within the spans (a needle
    /// only whole inside one span), offsets doc's; usize::MAX when absent.
    pub fn scan(&self, doc: &[u8], spans: &[Span]) -> Vec<usize> {
        let mut found = vec![usize::MAX; self.needles.len()];
        if self.grp.is_empty() {
            return found;
        }
        for s in spans {
            let h = &doc[..s.hi];
            let mut i = s.lo;
            while i + 1 < s.hi {
                let (a, b) = if self.fold { (lower_byte(h[i]), lower_byte(h[i + 1])) } else { (h[i], h[i + 1]) };
                let g = self.idx[((a as usize) << 8) | b as usize];
                if g != 0 {
                    for &id in &self.grp[g as usize - 1] {
                        if found[id] == usize::MAX && self.matches_at(&h[i..], &self.needles[id]) {
                            found[id] = i;
                        }
                    }
                }
                i += 1;
            }
        }
        found
    }

    fn matches_at(&self, h: &[u8], n: &[u8]) -> bool {
        if h.len() < n.len() {
            return false;
        }
        if self.fold {
            h.iter().zip(n).all(|(&a, &b)| lower_byte(a) == b)
        } else {
            &h[..n.len()] == n
        }
    }
}
