// Reading a Playwright ARIA snapshot (ai mode). The grammar, from
// Playwright's renderAriaSnapshotAsYaml:
//
//   - role "name" [checked] [level=2] [ref=e5] [cursor=pointer]: inline text
//     - /url: https://...
//     - /placeholder: Search
//     - text: a text node
//
// The key (everything before ": ") is single-quoted YAML when it needs
// quoting ('' escapes '), the name inside it is JSON, values are
// double-quoted YAML when they need quoting. Escapes may cut a multi-byte
// character (a \u with too few hex digits...), so the readers below work
// on bytes and only split at ASCII.

/// Node is one line of a snapshot with its children (indices into the
/// tree's nodes).
#[derive(Default, Debug)]
pub struct Node {
    pub role: String,
    pub name: String,
    pub attrs: Vec<String>, // [level=2], [checked]... without ref and cursor, in order
    pub ref_: String,
    pub pointer: bool, // [cursor=pointer]
    pub text: String,
    pub has_text: bool, // an inline value after ": "
    pub url: String,
    pub place: String,
    pub has_place: bool,
    pub children: Vec<usize>,
    pub is_text: bool, // "- text: ..."
    pub raw: String,   // an unparseable line, kept as is
}

/// Tree holds every node; node 0 is the root, whose children are the
/// snapshot's top-level lines.
pub struct Tree {
    pub nodes: Vec<Node>,
}

fn bytes_to_string(b: Vec<u8>) -> String {
    // Splits happen only at ASCII, so the bytes stay UTF-8.
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// parse reads a snapshot. It never fails: a line it cannot read is kept
/// verbatim as raw text.
pub fn parse(s: &str) -> Tree {
    let mut t = Tree { nodes: vec![Node::default()] };
    let mut stack: Vec<(isize, usize)> = vec![(-1, 0)];
    for line in s.split('\n') {
        if line.trim().is_empty() {
            continue;
        }
        let ind = line.len() - line.trim_start_matches(' ').len();
        let n = parse_line(&line[ind..]);
        while stack.len() > 1 && stack[stack.len() - 1].0 >= ind as isize {
            stack.pop();
        }
        let parent = stack[stack.len() - 1].1;
        if n.role == "/url" {
            t.nodes[parent].url = n.text;
            continue;
        }
        if n.role == "/placeholder" {
            t.nodes[parent].place = n.text;
            t.nodes[parent].has_place = true;
            continue;
        }
        if let Some(prop) = n.role.strip_prefix('/') {
            // Another property: keep it as an attribute of its parent.
            let a = format!("{}={}", prop, n.text);
            t.nodes[parent].attrs.push(a);
            continue;
        }
        let id = t.nodes.len();
        t.nodes.push(n);
        t.nodes[parent].children.push(id);
        stack.push((ind as isize, id));
    }
    t
}

fn parse_line(l: &str) -> Node {
    let rest = match l.strip_prefix("- ") {
        Some(r) => r,
        None => return Node { raw: l.to_string(), is_text: true, text: l.to_string(), ..Node::default() },
    };
    let (key, mut val, has_val) = split_entry(rest);
    if has_val {
        val = unquote_value(&val);
    }
    if key == "text" {
        return Node { is_text: true, text: val, has_text: true, ..Node::default() };
    }
    let mut n = Node::default();
    if key.starts_with('/') {
        n.role = key;
        n.text = val;
        n.has_text = has_val;
        return n;
    }
    parse_key(&mut n, &key);
    n.text = val;
    n.has_text = has_val;
    n
}

/// split_entry splits a YAML entry (after "- ") into its key and its
/// value, still quoted; has_val is false for a key alone ("key" or "key:").
fn split_entry(l: &str) -> (String, String, bool) {
    if !l.starts_with('\'') {
        return match l.find(": ") {
            Some(i) => (l[..i].to_string(), l[i + 2..].to_string(), true),
            None => (l.strip_suffix(':').unwrap_or(l).to_string(), String::new(), false),
        };
    }
    // A single-quoted key: '' is a quote.
    let b = l.as_bytes();
    let mut key = Vec::new();
    let mut i = 1;
    while i < b.len() {
        if b[i] == b'\'' {
            if i + 1 < b.len() && b[i + 1] == b'\'' {
                key.push(b'\'');
                i += 2;
                continue;
            }
            break;
        }
        key.push(b[i]);
        i += 1;
    }
    let rest = if i < b.len() { &l[i + 1..] } else { "" };
    match rest.strip_prefix(": ") {
        Some(v) => (bytes_to_string(key), v.to_string(), true),
        None => (bytes_to_string(key), String::new(), false),
    }
}

/// parse_key reads a node's key into n: role "name" [ref=...]
/// [cursor=pointer] [other attributes].
fn parse_key(n: &mut Node, key: &str) {
    let i = key.find(' ').unwrap_or(key.len());
    n.role = key[..i].to_string();
    let mut rest = key[i..].trim_start_matches(' ');
    if rest.starts_with('"') {
        if let Some((name, used)) = json_string(rest) {
            n.name = name;
            rest = rest[used..].trim_start_matches(' ');
        }
    }
    while rest.starts_with('[') {
        let j = match rest.find(']') {
            Some(j) => j,
            None => break,
        };
        let a = &rest[1..j];
        rest = rest[j + 1..].trim_start_matches(' ');
        if let Some(r) = a.strip_prefix("ref=") {
            n.ref_ = r.to_string();
        } else if a == "cursor=pointer" {
            n.pointer = true;
        } else {
            n.attrs.push(a.to_string());
        }
    }
    if !rest.is_empty() {
        // Something we do not know: keep the rest as an attribute.
        n.attrs.push(rest.trim().to_string());
    }
}

fn hex(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        v = v << 4 | (c as char).to_digit(16)?;
    }
    Some(v)
}

fn push_char(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

/// json_string decodes the JSON string at the start of s (lenient, as the
/// Go version was) and returns it and how many bytes it took.
fn json_string(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 1;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            return Some((bytes_to_string(out), i + 1));
        }
        if c != b'\\' || i + 1 >= b.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = b[i + 1];
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' => {
                if let Some(v) = b.get(i + 2..i + 6).and_then(hex) {
                    let mut r = v;
                    let mut used = 6;
                    if (0xD800..0xDC00).contains(&r) && i + 12 <= b.len() && b[i + 6] == b'\\' && b[i + 7] == b'u' {
                        if let Some(lo) = hex(&b[i + 8..i + 12]) {
                            if (0xDC00..0xE000).contains(&lo) {
                                r = ((r - 0xD800) << 10 | (lo - 0xDC00)) + 0x10000;
                                used = 12;
                            }
                        }
                    }
                    push_char(&mut out, char::from_u32(r).unwrap_or('\u{FFFD}'));
                    i += used;
                    continue;
                }
                out.push(b'u');
            }
            _ => out.push(e),
        }
        i += 2;
    }
    None
}

/// unquote_value reads a YAML value as Playwright writes it: plain, or
/// double-quoted with \\ \" \b \f \n \r \t \xHH escapes.
fn unquote_value(v: &str) -> String {
    let b = v.as_bytes();
    if b.len() < 2 || b[0] != b'"' || b[b.len() - 1] != b'"' {
        return v.to_string();
    }
    let inner = &b[1..b.len() - 1];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c != b'\\' || i + 1 >= inner.len() {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        match inner[i] {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'x' => {
                if i + 2 < inner.len() {
                    if let Some(x) = hex(&inner[i + 1..i + 3]) {
                        push_char(&mut out, char::from_u32(x).unwrap_or('\u{FFFD}'));
                        i += 3;
                        continue;
                    }
                }
                out.push(b'x');
            }
            e => out.push(e),
        }
        i += 1;
    }
    bytes_to_string(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_names_and_properties() {
        let t = parse("- generic [active] [ref=e1]:\n  - 'link \"It''s\" [ref=e2] [cursor=pointer]':\n    - /url: /x\n  - textbox \"Q\\u00e9\\ud83d\\ude00\" [ref=e3]: \"a\\x41\\n\"\n    - /placeholder: Find\n    - /value: v\n  - text: hi\nloose line\n");
        let root = &t.nodes[0];
        assert_eq!(root.children.len(), 2);
        let g = &t.nodes[root.children[0]];
        assert_eq!((g.role.as_str(), g.ref_.as_str(), g.attrs.clone()), ("generic", "e1", vec!["active".to_string()]));
        let link = &t.nodes[g.children[0]];
        assert_eq!((link.name.as_str(), link.url.as_str(), link.pointer), ("It's", "/x", true));
        let tb = &t.nodes[g.children[1]];
        assert_eq!((tb.name.as_str(), tb.text.as_str(), tb.place.as_str()), ("Qé\u{1f600}", "aA\n", "Find"));
        assert_eq!(tb.attrs, vec!["value=v".to_string()]);
        assert!(t.nodes[g.children[2]].is_text);
        assert_eq!(t.nodes[root.children[1]].raw, "loose line");
    }

    // The Go version's TestParseEscapes, same input, same assertions.
    #[test]
    fn parse_escapes() {
        let t = parse("- 'button \"it''s: ok\" [ref=e1]'\n- text: \"a \\\"quoted\\\"\\ttab \\x41\"\n- link \"\\u00e9t\\u00e9 \\ud83d\\ude00\" [ref=f1e2]:\n  - /url: \"#top\"");
        let ns: Vec<&Node> = t.nodes[0].children.iter().map(|&i| &t.nodes[i]).collect();
        assert_eq!(ns.len(), 3);
        assert_eq!((ns[0].name.as_str(), ns[0].ref_.as_str()), ("it's: ok", "e1"));
        assert_eq!(ns[1].text, "a \"quoted\"\ttab A");
        assert_eq!((ns[2].name.as_str(), ns[2].ref_.as_str(), ns[2].url.as_str()), ("été 😀", "f1e2", "#top"));
    }

    #[test]
    fn lenient_escapes_keep_bytes() {
        // A \u without four hex digits keeps its 'u'; a lone surrogate is
        // U+FFFD; a cut multi-byte character survives.
        assert_eq!(json_string("\"a\\u12\" x").unwrap(), ("au12".to_string(), 7));
        assert_eq!(json_string("\"\\ud800x\"").unwrap().0, "\u{FFFD}x");
        assert_eq!(json_string("\"\\é\"").unwrap().0, "é");
        assert_eq!(unquote_value("\"\\xé\""), "xé");
        assert_eq!(unquote_value("\"\\x4\""), "x4");
        assert_eq!(json_string("\"open"), None);
    }
}
