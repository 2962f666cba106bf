//! The crate's layering: `lib.rs` declares the top-level modules in pipeline order, and no
//! module uses one declared after it (read from the `crate::` paths of its source).

use std::path::{Path, PathBuf};

/// The top-level modules, as `lib.rs` declares them.
fn declared(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

/// Every module `source` names through a `crate::` path (in a `use` item, grouped or not, or
/// inline), with the 1-based line it is named on. Comment lines and test modules (inline at
/// the end of a file) are not read: tests may use anything.
fn used_modules(source: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    // An open `use crate::{ ... };` item: its brace depth, while it spans lines.
    let mut group: Option<usize> = None;
    let lines: Vec<&str> = source.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") || t.starts_with("#[cfg(all(test") {
            // `mod tests;` declares a file of its own (not read); an inline test module
            // runs to the end of the file.
            if lines
                .get(i + 1)
                .is_some_and(|n| n.trim_end().ends_with(';'))
            {
                continue;
            }
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        let mut rest: &str = line;
        if let Some(depth) = group.as_mut() {
            rest = take_group(rest, depth, i + 1, &mut out);
            if *depth == 0 {
                group = None;
            }
        }
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(inner) = after.strip_prefix('{') {
                let mut depth = 1;
                rest = take_group(inner, &mut depth, i + 1, &mut out);
                if depth > 0 {
                    group = Some(depth);
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                rest = &after[name.len()..];
                out.push((name, i + 1));
            }
        }
    }
    out
}

/// Reads the names at depth 1 of a `crate::{...}` group from `text`, until the group closes;
/// returns what follows it.
fn take_group<'t>(
    text: &'t str,
    depth: &mut usize,
    line: usize,
    out: &mut Vec<(String, usize)>,
) -> &'t str {
    let mut word = String::new();
    // Whether the word being read starts a path at depth 1 (after `{` or `,`).
    let mut at_start = true;
    for (k, c) in text.char_indices() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() && *depth == 1 && at_start && word != "self" {
            out.push((std::mem::take(&mut word), line));
        }
        word.clear();
        match c {
            '{' => *depth += 1,
            '}' => {
                *depth -= 1;
                if *depth == 0 {
                    return &text[k + 1..];
                }
            }
            ',' if *depth == 1 => {
                at_start = true;
                continue;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            at_start = false;
        }
    }
    if !word.is_empty() && *depth == 1 && at_start {
        out.push((word, line));
    }
    ""
}

/// The source files of top-level module `name`, but its `tests.rs` files.
fn files_of(src: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let file = src.join(format!("{name}.rs"));
    if file.is_file() {
        out.push(file);
    }
    let mut dirs = vec![src.join(name)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let path = e.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_reader_finds_plain_grouped_and_inline_uses_and_skips_tests() {
    let source = "use crate::patch::Hunk;\n\
                  // use crate::cli::main;\n\
                  use crate::{\n    input,\n    parse::{self, Format},\n    text::file::TextFile,\n};\n\
                  #[cfg(test)]\nmod tests;\n\
                  use crate::{git::Git, repo};\n\
                  fn f() { crate::report::render(); }\n\
                  #[cfg(test)]\nmod tests { use crate::run::apply; }\n";
    let got = used_modules(source);
    let want = [
        ("patch", 1),
        ("input", 4),
        ("parse", 5),
        ("text", 6),
        ("git", 10),
        ("repo", 10),
        ("report", 11),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(n, l)| (n.to_string(), *l)).collect();
    assert_eq!(got, want);
}

#[test]
fn no_module_uses_a_module_declared_after_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let order = declared(&lib);
    assert_eq!(
        order[..2],
        ["sys", "text"],
        "the helpers every stage shares come first"
    );
    let mut later = Vec::new();
    let mut seen = 0;
    for (i, name) in order.iter().enumerate() {
        let files = files_of(&src, name);
        assert!(!files.is_empty(), "module {name} has no source file");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (used, line) in used_modules(&text) {
                let Some(j) = order.iter().position(|m| *m == used) else {
                    continue;
                };
                seen += 1;
                if j > i {
                    let at = file.strip_prefix(&src).expect("under src").display();
                    later.push(format!("{name} uses {used} (src/{at}:{line})"));
                }
            }
        }
    }
    // The source names other modules hundreds of times: a reader that found none is broken.
    assert!(seen > 100, "only {seen} uses of other modules found");
    assert!(
        later.is_empty(),
        "modules using a module declared after them in lib.rs:\n{}",
        later.join("\n")
    );
}
