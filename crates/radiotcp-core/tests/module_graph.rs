//! The crate's modules form no import circle: reading every `crate::` path in `src/` (outside
//! comments and `#[cfg(test)]` code), the graph of which module names which has no cycle.
//! A module naming its own ancestor (a node kind using `super::Ctx`) is the parent-child
//! idiom and not counted. The layers this keeps, bottom up: engine, packet, link, entities
//! (tcp, radio, ack, queue), wire (IPv4/TCP headers) -> results -> probe -> net -> node -> sim
//! -> topology (the builder) -> emulate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `a/b.rs` -> `a::b`, `a/mod.rs` -> `a`, `lib.rs` -> `` (the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without its `#[cfg(test)]` tail.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths named after each `crate::`, group imports (`crate::{a::b, c}`) expanded.
fn crate_paths(code: &str) -> Vec<String> {
    fn path_at(s: &str) -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect()
    }
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group, up to its closing brace.
            let (mut depth, mut start) = (0usize, 0usize);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(path_at(group[start..j].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(path_at(group[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(path_at(rest));
        }
    }
    out
}

#[test]
fn the_modules_form_no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files
        .iter()
        .map(|f| (module_of(&src, f), f.clone()))
        .collect();
    assert!(modules.contains_key("node") && modules.contains_key("sim"));
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, f) in &modules {
        let text = std::fs::read_to_string(f).expect("a readable source");
        let targets = edges.entry(m.clone()).or_default();
        for p in crate_paths(&code(&text)) {
            // The longest module the path starts with.
            let Some(target) = modules
                .keys()
                .filter(|n| !n.is_empty() && (p == **n || p.starts_with(&format!("{n}::"))))
                .max_by_key(|n| n.len())
            else {
                continue;
            };
            let is_ancestor = m.starts_with(&format!("{target}::"));
            if target != m && !is_ancestor {
                targets.insert(target.clone());
            }
        }
    }
    // Depth-first search for a back edge; the cycle found is printed whole.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for n in edges.get(m).into_iter().flatten() {
            match state.get(n.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == n).expect("on the stack");
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(n.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(n, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in modules.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(m, &edges, &mut state, &mut Vec::new()) {
                panic!("an import circle: {}", cycle.join(" -> "));
            }
        }
    }
    // The edges that used to close the circle stay gone.
    for (from, to) in [
        ("results", "sim"),
        ("results", "probe::capture"),
        ("sim", "metrics"),
        ("node::umts", "node::router"),
        ("node", "topology"),
    ] {
        assert!(
            !edges[from].contains(to),
            "{from} names {to} again: {:?}",
            edges[from]
        );
    }
}

#[test]
fn group_imports_and_comments_are_read_as_the_compiler_reads_them() {
    let c = code("use crate::{a::b, c::{d, e}}; // crate::x\nlet y = crate::f::g(1);\n#[cfg(test)]\nuse crate::t;");
    assert_eq!(crate_paths(&c), ["a::b", "c::", "f::g"]);
}
