// What a detector looks at, read once per call, and the questions rules
// ask of it.

use crate::doc::{count_runes, read_doc, DocFacts, Span, STUB_MAX_TEXT, WALL_MAX_LINKS, WALL_MAX_TEXT};
use crate::gostr::{collapse, equal_fold_ascii, quote, to_lower, trim_space};
use crate::needles::{Needles, Table, N_PLACES, SHOWN};

pub struct Page<'a> {
    /// where the page was loaded from (a vendor's own captcha host)
    pub url: &'a [u8],
    pub status: i64,
    /// lower-case keys
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    pub title: Vec<u8>,
    /// the document as the host sent it
    pub html: &'a [u8],
    pub doc: DocFacts,
    /// the title and the visible text (the host's rendered text, else the
    /// document's), as a person would read them
    shown_text: Vec<u8>,
    pub text_runes: usize,
    /// set for a page that could be a wall (little): only then are its
    /// places searched
    searchable: bool,
    /// per place, where each registered needle first occurs, searched
    /// when a rule first asks about the place
    found: [Option<Vec<usize>>; N_PLACES],
    tables: &'static [Table; N_PLACES],
}

impl<'a> Page<'a> {
    pub fn new(status: i64, headers: &[(Vec<u8>, Vec<u8>)], title: &[u8], text: &'a [u8], doc: &'a [u8], tables: &'static [Table; N_PLACES]) -> Page<'a> {
        let mut p = Page {
            url: b"",
            status,
            headers: headers.iter().map(|(k, v)| (to_lower(k), v.clone())).collect(),
            title: collapse(title),
            html: doc,
            doc: DocFacts::default(),
            shown_text: Vec::new(),
            text_runes: 0,
            searchable: false,
            found: [None, None, None],
            tables,
        };
        // The host's rendered text (innerText) is what the page shows;
        // without it, the document's text outside scripts and hidden
        // elements.
        let text = trim_space(text);
        let read_text;
        let shown: &[u8] = if !text.is_empty() {
            p.text_runes = count_runes(text, WALL_MAX_TEXT);
            if p.text_runes > WALL_MAX_TEXT {
                p.doc = DocFacts { rich: true, ..DocFacts::default() };
            } else {
                p.doc = read_doc(doc, false);
            }
            text
        } else {
            p.doc = read_doc(doc, true);
            p.text_runes = p.doc.text_runes;
            read_text = std::mem::take(&mut p.doc.text);
            &read_text
        };
        if p.title.is_empty() {
            p.title = p.doc.title.clone();
        }
        if p.little() {
            p.shown_text = [&p.title[..], b"\n", shown].concat();
            p.searchable = true;
        }
        p
    }

    /// A page that holds no more than a wall does: little visible text and
    /// few links. Only such a page can be a wall, whatever vendor markers
    /// it carries.
    pub fn little(&self) -> bool {
        !self.doc.rich && self.text_runes <= WALL_MAX_TEXT && self.doc.links <= WALL_MAX_LINKS
    }

    /// A page that shows next to nothing and loads next to nothing besides:
    /// a challenge shell whose only content is the vendor's script.
    pub fn stub(&self) -> bool {
        let d = &self.doc;
        self.little() && self.text_runes < STUB_MAX_TEXT && d.links <= 2 && d.fields == 0 && d.sheets == 0 && d.srcs <= 4 && d.elements <= 40
    }

    fn source(&self, at: usize) -> &[u8] {
        if at == SHOWN {
            &self.shown_text
        } else {
            self.html
        }
    }

    /// The spans of the document that make place at (built, script).
    fn spans(&self, at: usize) -> &[Span] {
        if at == crate::needles::BUILT {
            &self.doc.built
        } else {
            &self.doc.script
        }
    }

    /// The first of ns found in its place, as found, or empty.
    pub fn has(&mut self, ns: &Needles) -> Vec<u8> {
        if !self.searchable {
            return Vec::new();
        }
        let at = ns.at;
        if self.found[at].is_none() {
            let f = if at == SHOWN {
                let whole = [Span { lo: 0, hi: self.shown_text.len() }];
                self.tables[at].scan(&self.shown_text, &whole)
            } else {
                self.tables[at].scan(self.html, self.spans(at))
            };
            self.found[at] = Some(f);
        }
        let found = self.found[at].as_ref().unwrap();
        for n in ns.list {
            if let Some(id) = self.tables[at].id(n) {
                let i = found[id];
                if i != usize::MAX {
                    return self.source(at)[i..i + n.len()].to_vec();
                }
            }
        }
        Vec::new()
    }

    /// The first match of m in place at, or empty.
    pub fn re(&self, at: usize, m: fn(&[u8]) -> Option<&[u8]>) -> Vec<u8> {
        if !self.searchable {
            return Vec::new();
        }
        if at == SHOWN {
            return m(&self.shown_text).map(|b| b.to_vec()).unwrap_or_default();
        }
        for s in self.spans(at) {
            if let Some(b) = m(&self.html[s.lo..s.hi]) {
                return b.to_vec();
            }
        }
        Vec::new()
    }

    /// Whether the page's places are searched at all (page.little).
    pub fn searchable(&self) -> bool {
        self.searchable
    }

    pub fn header(&self, k: &[u8]) -> &[u8] {
        // the last of two keys that differ only in case
        self.headers.iter().rev().find(|(hk, _)| hk == k).map(|(_, v)| &v[..]).unwrap_or(b"")
    }

    pub fn title_is(&self, ts: &[&str]) -> Vec<u8> {
        for t in ts {
            if equal_fold_ascii(&self.title, t.as_bytes()) {
                return [&b"title "[..], &quote(&self.title)].concat();
            }
        }
        Vec::new()
    }
}

pub fn both(a: Vec<u8>, b: Vec<u8>) -> Vec<u8> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    [&a[..], b" with ", &b[..]].concat()
}

pub fn either(ms: Vec<Vec<u8>>) -> Vec<u8> {
    ms.into_iter().find(|m| !m.is_empty()).unwrap_or_default()
}
