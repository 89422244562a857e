// The output format, a thrifty dialect of Playwright's:
//
//	- navigation:
//	  - link "News" [ref=e24]
//	  - textbox "Search" [ref=e72] [placeholder="Search the site"]
//	## A heading (the number of # is its level)
//	A paragraph's text, joined from its text nodes, on one bare line.
//	- row: Name | Price | Stock
//	- list:
//	  - link "Item 1" [ref=e30]
//	  … 40 more items: browser_snapshot ref=e28
//
// Lines starting "- " are elements: role, "accessible name", states and,
// for what an agent can act on, [ref=...]. Bare lines are text. Wrappers
// that carry no meaning (unnamed generic, group, listitem, paragraph,
// inline formatting) disappear and their content moves up, unless they take
// input ([cursor=pointer], a mark such as [draggable], an item inside a
// pointer element: they keep their ref); link URLs go; text that only
// repeats an element's name goes.

use super::aria::{parse, Node, Tree};
use super::goquote::{quote, unquote_prefix};

/// interactive roles keep their ref, role and name; so do plain elements an
/// agent can act on (Compactor::actionable).
fn interactive(r: &str) -> bool {
    matches!(
        r,
        "link" | "button" | "textbox" | "checkbox" | "radio" | "combobox" | "listbox" | "menuitem" | "menuitemcheckbox"
            | "menuitemradio" | "tab" | "option" | "slider" | "searchbox" | "switch" | "spinbutton" | "treeitem" | "scrollbar"
    )
}

/// kept roles are structure that means something to an agent: landmarks,
/// dialogs, tables, menus. They keep their line (without ref) and indent
/// their content.
fn kept(r: &str) -> bool {
    matches!(
        r,
        "banner" | "navigation" | "main" | "contentinfo" | "complementary" | "search" | "form" | "dialog" | "alertdialog"
            | "alert" | "article" | "region" | "table" | "grid" | "treegrid" | "tree" | "tablist" | "tabpanel" | "menu"
            | "menubar" | "toolbar" | "iframe" | "status" | "log" | "marquee" | "timer" | "tooltip" | "radiogroup" | "math"
            | "feed"
    )
}

/// inline roles are text-level: their text joins the surrounding text.
fn inline_role(r: &str) -> bool {
    matches!(
        r,
        "generic" | "strong" | "emphasis" | "code" | "superscript" | "subscript" | "insertion" | "deletion" | "mark"
            | "time" | "none" | "presentation" | "abbr" | "LabelText" | "text"
    )
}

/// dropped roles carry nothing worth a token.
fn dropped(r: &str) -> bool {
    r == "separator"
}

fn cell_role(r: &str) -> bool {
    matches!(r, "cell" | "gridcell" | "columnheader" | "rowheader")
}

/// marks are what the browser service adds to a snapshot line for an
/// element that takes input without a role saying so: a drag source, a
/// drop target, an element with a click or hover handler of its own, a
/// plain element a keyboard may reach (tabindex).
fn mark(a: &str) -> bool {
    matches!(a, "draggable" | "droppable" | "clickable" | "hoverable" | "focusable")
}

/// Options tune the output.
#[derive(Clone, Debug)]
pub struct Options {
    /// The ref of a scoped snapshot's root (the call's {"ref": ...}): its
    /// children are never folded, so unfolding shows them.
    pub scope_ref: String,
    /// A run of at least fold_min consecutive near-identical siblings keeps
    /// its first fold_keep and folds the rest into one line.
    pub fold_min: usize,
    pub fold_keep: usize,
    pub indent: &'static str,
    /// links keeps every link's URL as [url=...]; link_filter, when set,
    /// makes the output only the links whose URL or name contains it
    /// (case-insensitive), with their URLs.
    pub links: bool,
    pub link_filter: String,
}

impl Default for Options {
    fn default() -> Options {
        Options { scope_ref: String::new(), fold_min: 30, fold_keep: 10, indent: "  ", links: false, link_filter: String::new() }
    }
}

/// Out is one output line with the lines nested under it.
#[derive(Default, Debug)]
struct Out<'a> {
    head: String, // for an element: `role "name" [ref=e1]`; for text: the text
    text: bool,   // a bare text line
    inline: bool, // text that joins adjacent inline text
    value: String, // inline value after ": " of an element line
    kids: Vec<Out<'a>>,
    role: &'a str,
    inter: bool, // holds an interactive element
}

fn text_out<'a>(head: String, inline: bool) -> Out<'a> {
    Out { head, text: true, inline, ..Out::default() }
}

/// compact_snapshot rewrites a Playwright ai-mode snapshot.
pub fn compact_snapshot(s: &str, o: &Options) -> String {
    let tree = parse(s);
    let roots = &tree.nodes[0].children;
    if !o.link_filter.is_empty() {
        return matching_links(&tree, &o.link_filter);
    }
    let scoped = !o.scope_ref.is_empty() && roots.iter().any(|&r| tree.nodes[r].ref_ == o.scope_ref);
    let mut c = Compactor { o, t: &tree, in_pointer: 0 };
    let top = c.children(roots, None, !o.scope_ref.is_empty() && !scoped);
    let mut b = String::with_capacity(s.len() / 2);
    write(&mut b, &top, 0, o.indent);
    if b.ends_with('\n') {
        b.pop();
    }
    b
}

struct Compactor<'a> {
    o: &'a Options,
    t: &'a Tree,
    /// How many plain (non-interactive) [cursor=pointer] elements are
    /// being rendered around the current node.
    in_pointer: usize,
}

/// clean collapses runs of white space to one space and trims the ends.
fn clean(s: &str) -> String {
    if !s.contains(|c| matches!(c, '\n' | '\r' | '\t' | ' ')) {
        return s.trim().to_string();
    }
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn contains_bytes(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// lower is one character's simple lowercase, as Go's unicode.ToLower.
fn lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn upper(c: char) -> char {
    let mut u = c.to_uppercase();
    match (u.next(), u.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// equal_fold is Go's strings.EqualFold: equal under simple case folding.
pub fn equal_fold(a: &str, b: &str) -> bool {
    let (mut x, mut y) = (a.chars(), b.chars());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(c), Some(d)) => {
                if c != d && lower(c) != lower(d) && upper(c) != upper(d) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// to_lower is Go's strings.ToLower: each character's simple lowercase.
fn to_lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.chars().map(lower).collect()
}

/// own_text_leaf: an element with text of its own and no elements inside.
fn own_text_leaf(t: &Tree, n: &Node) -> bool {
    let mut text = n.has_text && !clean(&n.text).is_empty();
    for &k in &n.children {
        let k = &t.nodes[k];
        if !k.is_text {
            return false;
        }
        text = text || !clean(&k.text).is_empty();
    }
    text
}

/// signature says which siblings are near-identical: same role and the
/// same shape of rendered content. Text-only siblings never fold (text is
/// what an agent reads).
fn signature(n: &Node, r: &[Out]) -> String {
    if r.is_empty() {
        return String::new();
    }
    let mut b = n.role.clone();
    let mut inter = false;
    for o in r {
        b.push('|');
        b.push_str(if o.text { "#" } else { o.role });
        inter = inter || o.inter;
        for k in &o.kids {
            b.push(',');
            b.push_str(k.role);
            inter = inter || k.inter;
        }
    }
    if !inter {
        return String::new();
    }
    b
}

fn join_text(a: &mut String, b: &str) {
    if a.is_empty() {
        a.push_str(b);
    } else if !b.is_empty() {
        a.push(' ');
        a.push_str(b);
    }
}

fn join_inline(input: Vec<Out>) -> Vec<Out> {
    let mut res: Vec<Out> = Vec::with_capacity(input.len());
    for o in input {
        if o.text && o.inline {
            if let Some(last) = res.last_mut() {
                if last.text && last.inline {
                    join_text(&mut last.head, &o.head);
                    continue;
                }
            }
        }
        res.push(o);
    }
    res
}

/// leaf_name is the quoted name of a rendered element line.
fn leaf_name(head: &str) -> Vec<u8> {
    match head.find('"') {
        Some(i) => unquote_prefix(&head[i..]).unwrap_or_default(),
        None => Vec::new(),
    }
}

/// dedupe drops text and non-interactive leaves that only repeat name.
fn dedupe<'a>(kids: Vec<Out<'a>>, name: &str) -> Vec<Out<'a>> {
    if name.is_empty() {
        return kids;
    }
    kids.into_iter()
        .filter(|k| {
            if !k.kids.is_empty() || k.inter || !k.value.is_empty() {
                return true;
            }
            if k.text {
                return !name.contains(k.head.as_str());
            }
            let kn = leaf_name(&k.head);
            kn.is_empty() || !contains_bytes(name.as_bytes(), &kn)
        })
        .collect()
}

impl<'a> Compactor<'a> {
    /// actionable reports whether a node that is no control by its role is
    /// one an agent can act on, so it keeps its ref: it has
    /// [cursor=pointer] or a mark, or it is an item of a plain clickable
    /// element (a hover menu's entries under a pointer container:
    /// Playwright marks only the outermost pointer element).
    fn actionable(&self, n: &Node) -> bool {
        if n.ref_.is_empty() {
            return false;
        }
        if n.pointer || n.attrs.iter().any(|a| mark(a)) {
            return true;
        }
        self.in_pointer > 0 && own_text_leaf(self.t, n)
    }

    /// children renders a node's children, folding long runs of
    /// near-identical siblings unless no_fold, and joining adjacent inline
    /// text.
    fn children(&mut self, kids: &[usize], parent: Option<&'a Node>, no_fold: bool) -> Vec<Out<'a>> {
        let t = self.t;
        let mut rendered: Vec<Vec<Out<'a>>> = Vec::with_capacity(kids.len());
        let mut sigs: Vec<String> = Vec::with_capacity(kids.len());
        for &k in kids {
            let r = self.node(&t.nodes[k]);
            sigs.push(signature(&t.nodes[k], &r));
            rendered.push(r);
        }
        let fold_ref = match parent {
            Some(p) if !no_fold && !p.ref_.is_empty() && self.o.fold_min > 0 => Some(p.ref_.as_str()),
            _ => None,
        };
        let mut res = Vec::new();
        let mut rendered = rendered.into_iter();
        let mut i = 0;
        while i < kids.len() {
            let mut j = i + 1;
            while j < kids.len() && sigs[j] == sigs[i] {
                j += 1;
            }
            let run = j - i;
            match fold_ref {
                Some(r) if run >= self.o.fold_min && !sigs[i].is_empty() => {
                    for (k, outs) in rendered.by_ref().take(run).enumerate() {
                        if k < self.o.fold_keep {
                            res.extend(outs);
                        }
                    }
                    let hidden = run as isize - self.o.fold_keep as isize;
                    res.push(text_out(format!("… {} more items: browser_snapshot ref={}", hidden, r), false));
                }
                _ => {
                    for outs in rendered.by_ref().take(run) {
                        res.extend(outs);
                    }
                }
            }
            i = j;
        }
        join_inline(res)
    }

    fn node(&mut self, n: &'a Node) -> Vec<Out<'a>> {
        if !n.raw.is_empty() {
            return vec![text_out(clean(&n.raw), false)];
        }
        if n.is_text {
            let t = clean(&n.text);
            if t.is_empty() {
                return Vec::new();
            }
            return vec![text_out(t, true)];
        }
        if dropped(&n.role) {
            return Vec::new();
        }
        let name = clean(&n.name);
        let is_scope = !self.o.scope_ref.is_empty() && n.ref_ == self.o.scope_ref;
        if interactive(&n.role) || self.actionable(n) || is_scope {
            return vec![self.element(n, &name, true, is_scope)];
        }
        if n.role == "heading" {
            return self.heading(n, name);
        }
        if n.role == "row" {
            return self.row(n);
        }
        if kept(&n.role) || (!name.is_empty() && !cell_role(&n.role) && n.role != "listitem" && n.role != "paragraph") {
            let o = self.element(n, &name, false, false);
            if o.kids.is_empty() && o.value.is_empty() && name.is_empty() && !o.inter {
                return Vec::new();
            }
            return vec![o];
        }
        // Transparent: the content moves up.
        let mut kids = self.children(&n.children, Some(n), false);
        if n.has_text {
            let t = clean(&n.text);
            if !t.is_empty() {
                kids.insert(0, text_out(t, true));
            }
        }
        if !name.is_empty() {
            // A named wrapper (a cell whose name is its text): the name is
            // the text, said once.
            let mut k = dedupe(kids, &name);
            k.insert(0, text_out(name, true));
            kids = k;
        }
        if !inline_role(&n.role) {
            // A block (paragraph, listitem, cell...): its text stays apart
            // from its siblings'.
            kids = join_inline(kids);
            for k in kids.iter_mut() {
                k.inline = false;
            }
        }
        kids
    }

    /// element renders a node as a "- role ..." line.
    fn element(&mut self, n: &'a Node, name: &str, act: bool, is_scope: bool) -> Out<'a> {
        let inter_role = interactive(&n.role);
        let mut b = n.role.clone();
        if !name.is_empty() {
            b.push(' ');
            b.push_str(&quote(name));
        }
        for a in &n.attrs {
            if a.starts_with("level=") && n.role != "heading" || mark(a) && inter_role {
                continue; // a control's role already says it takes input
            }
            b.push_str(" [");
            b.push_str(a);
            b.push(']');
        }
        if act && !n.ref_.is_empty() {
            b.push_str(" [ref=");
            b.push_str(&n.ref_);
            b.push(']');
            if n.pointer && !inter_role && !is_scope {
                b.push_str(" [cursor=pointer]");
            }
        }
        if self.o.links && !n.url.is_empty() {
            b.push_str(" [url=");
            b.push_str(&n.url);
            b.push(']');
        }
        if n.has_place {
            let p = clean(&n.place);
            if !p.is_empty() && !equal_fold(&p, name) {
                b.push_str(" [placeholder=");
                b.push_str(&quote(&p));
                b.push(']');
            }
        }
        let mut o = Out { head: b, role: &n.role, inter: act && inter_role, ..Out::default() };
        if n.has_text {
            let t = clean(&n.text);
            if !t.is_empty() && !name.contains(t.as_str()) {
                o.value = t;
            }
        }
        let plain_pointer = n.pointer && !inter_role;
        if plain_pointer {
            self.in_pointer += 1;
        }
        let kids = self.children(&n.children, Some(n), is_scope);
        if plain_pointer {
            self.in_pointer -= 1;
        }
        let mut kids = dedupe(kids, name);
        for k in kids.iter_mut() {
            k.inline = false;
            o.inter = o.inter || k.inter;
        }
        // One leaf child goes on the same line: `- link [ref=e7]: img "Logo"`.
        if o.value.is_empty() && kids.len() == 1 && kids[0].kids.is_empty() && kids[0].value.is_empty() {
            if kids[0].text || !kids[0].inter {
                o.value = kids.pop().map(|k| k.head).unwrap_or_default();
            } else {
                o.kids = kids;
            }
        } else {
            o.kids = kids;
        }
        o
    }

    fn heading(&mut self, n: &'a Node, mut name: String) -> Vec<Out<'a>> {
        let mut level = 2;
        for a in &n.attrs {
            if let Some(v) = a.strip_prefix("level=") {
                if let Ok(v) = v.parse::<i64>() {
                    if (1..=6).contains(&v) {
                        level = v as usize;
                    }
                }
            }
        }
        let mut kids = self.children(&n.children, Some(n), false);
        if n.has_text {
            let t = clean(&n.text);
            if !t.is_empty() {
                kids.insert(0, text_out(t, false));
            }
        }
        let kids = join_inline(kids);
        let mut kids = dedupe(kids, &name);
        let marks = "#".repeat(level) + " ";
        if name.is_empty() && !kids.is_empty() && kids[0].text {
            name = kids.remove(0).head;
        }
        if name.is_empty() && kids.is_empty() {
            return Vec::new();
        }
        let mut inter = false;
        for k in kids.iter_mut() {
            k.inline = false;
            inter = inter || k.inter;
        }
        // A heading that is a link: `## link "Title" [ref=e5]`.
        if kids.len() == 1
            && !kids[0].text
            && kids[0].kids.is_empty()
            && kids[0].value.is_empty()
            && (name.is_empty() || leaf_name(&kids[0].head) == name.as_bytes())
        {
            let head = marks + "- " + &kids[0].head;
            return vec![Out { head, text: true, role: "heading", inter, ..Out::default() }];
        }
        if name.is_empty() {
            return kids;
        }
        vec![Out { head: marks + &name, text: true, kids, role: "heading", inter, ..Out::default() }]
    }

    /// row renders a table row; a row of plain cells goes on one line.
    fn row(&mut self, n: &'a Node) -> Vec<Out<'a>> {
        let mut cells: Vec<String> = Vec::new();
        let mut simple = true;
        let mut all: Vec<Out<'a>> = Vec::new();
        for &k in &n.children {
            let r = self.node(&self.t.nodes[k]);
            if r.is_empty() {
                cells.push(String::new());
            } else if r.len() == 1 && r[0].text && r[0].kids.is_empty() && !r[0].inter {
                cells.push(r[0].head.clone());
            } else {
                simple = false;
            }
            all.extend(r);
        }
        if all.is_empty() {
            return Vec::new();
        }
        if simple {
            return vec![Out { head: "row".into(), role: "row", value: cells.join(" | "), ..Out::default() }];
        }
        let mut o = Out { head: "row".into(), role: "row", ..Out::default() };
        for mut k in join_inline(all) {
            k.inline = false;
            o.inter = o.inter || k.inter;
            o.kids.push(k);
        }
        vec![o]
    }
}

/// matching_links lists the links whose URL or name contains filter
/// (case-insensitive), one line each with ref and URL, in page order.
fn matching_links(t: &Tree, filter: &str) -> String {
    let f = to_lower(filter);
    let mut b = String::new();
    let mut stack: Vec<usize> = t.nodes[0].children.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        let n = &t.nodes[id];
        if n.role == "link" && !n.url.is_empty() {
            let text = link_text(t, n);
            if to_lower(&n.url).contains(f.as_str()) || to_lower(&text).contains(f.as_str()) {
                b.push_str("- link");
                if !text.is_empty() {
                    b.push(' ');
                    b.push_str(&quote(&text));
                }
                if !n.ref_.is_empty() {
                    b.push_str(" [ref=");
                    b.push_str(&n.ref_);
                    b.push(']');
                }
                b.push_str(" [url=");
                b.push_str(&n.url);
                b.push_str("]\n");
            }
        }
        stack.extend(n.children.iter().rev());
    }
    if b.is_empty() {
        return format!("No link's URL or name contains {}.", quote(filter));
    }
    b.pop();
    b
}

/// link_text is a link's accessible name, or else the names and text
/// inside it.
fn link_text(t: &Tree, n: &Node) -> String {
    let name = clean(&n.name);
    if !name.is_empty() {
        return name;
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut stack = vec![n];
    while let Some(m) = stack.pop() {
        parts.push(&m.name);
        if m.has_text {
            parts.push(&m.text);
        }
        stack.extend(m.children.iter().rev().map(|&k| &t.nodes[k]));
    }
    clean(&parts.join(" "))
}

fn write(b: &mut String, outs: &[Out], depth: usize, ind: &str) {
    for o in outs {
        for _ in 0..depth {
            b.push_str(ind);
        }
        if o.text {
            if needs_quoting(&o.head) {
                b.push_str(&quote(&o.head));
            } else {
                b.push_str(&o.head);
            }
        } else {
            b.push_str("- ");
            b.push_str(&o.head);
            if !o.value.is_empty() {
                b.push_str(": ");
                b.push_str(&o.value);
            } else if !o.kids.is_empty() {
                b.push(':');
            }
        }
        b.push('\n');
        write(b, &o.kids, depth + 1, ind);
    }
}

/// needs_quoting: a bare text line that would read as an element line.
fn needs_quoting(t: &str) -> bool {
    t.starts_with("- ") || t == "-" || t.starts_with('"')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_collapses_white_space() {
        assert_eq!(clean("  a \n\t b  "), "a b");
        assert_eq!(clean("\u{a0}a\u{a0}b\u{a0}"), "a\u{a0}b");
        assert_eq!(clean("a\u{2003} b"), "a b");
    }

    #[test]
    fn folding_keeps_the_first_items() {
        let mut s = String::from("- list [ref=e1]:\n");
        for i in 0..31 {
            s += &format!("  - link \"L{}\" [ref=e{}]\n", i, i + 2);
        }
        let o = Options::default();
        let out = compact_snapshot(&format!("- main:\n{}", s.replace("\n  ", "\n    ").replacen("- list", "  - list", 1)), &o);
        assert!(out.contains("… 21 more items: browser_snapshot ref=e1"), "{}", out);
        assert!(out.contains("link \"L9\"") && !out.contains("link \"L10\""), "{}", out);
    }

    #[test]
    fn folds_and_case_helpers_match_go() {
        assert!(equal_fold("Search", "sEARCH") && equal_fold("ſ", "S") && equal_fold("Σ", "ς") && !equal_fold("a", "ab"));
        assert_eq!(to_lower("ÀB İ"), "àb i");
    }

    #[test]
    fn leaf_name_reads_the_quoted_name() {
        assert_eq!(leaf_name("link \"a \\\"b\\\"\" [ref=e1]"), b"a \"b\"");
        assert_eq!(leaf_name("img"), b"");
        assert_eq!(leaf_name("x \"bad\\q\""), b"");
    }
}
