//! The edit dialects of issue 12 through the binary, from the fixture cases in
//! `tests/fixtures/formats/` that carry an `expect` file: the exit status, the format read,
//! the notices and the error kind each must give, and exact bytes — the `after/` tree when
//! the case applies, the `before/` tree, index and HEAD untouched when it is refused.
//!
//! `expect` holds one fact per line: `exit N`, `format NAME`, `notice KIND`, `error KIND`,
//! `args ARG...` (extra command-line arguments), `message TEXT` (a phrase the error or a
//! notice must contain); `#` starts a comment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::TestRepo;

/// What a case's `expect` file asks for.
#[derive(Default, Debug)]
struct Expect {
    exit: i32,
    format: Option<String>,
    notices: Vec<String>,
    error: Option<String>,
    args: Vec<String>,
    messages: Vec<String>,
}

fn read_expect(path: &Path) -> Expect {
    let text = std::fs::read_to_string(path).expect("read expect");
    let mut e = Expect::default();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "exit" => e.exit = value.parse().expect("exit status is a number"),
            "format" => e.format = Some(value.to_string()),
            "notice" => e.notices.push(value.to_string()),
            "error" => e.error = Some(value.to_string()),
            "args" => e.args = value.split_whitespace().map(str::to_string).collect(),
            "message" => e.messages.push(value.to_string()),
            other => panic!("{}: unknown expect key {other:?}", path.display()),
        }
    }
    e
}

/// Every regular file below `dir`, by slash-separated relative path.
fn files_below(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).expect("read fixture dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .expect("under root")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).expect("read fixture file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.is_dir() {
        walk(dir, dir, &mut out);
    }
    out
}

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixture root")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expect").is_file())
        .collect();
    cases.sort();
    cases
}

/// Run one case; the list of what did not hold.
fn run_case(case: &Path) -> Vec<String> {
    let expect = read_expect(&case.join("expect"));
    let r = TestRepo::empty();
    let before = files_below(&case.join("before"));
    for (path, bytes) in &before {
        r.write(path, bytes);
    }
    r.commit_all("before");
    let state = r.state();
    let patch = std::fs::read(case.join("patch")).expect("read patch");
    let mut args = vec!["--json".to_string()];
    args.extend(expect.args.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = r.apply_bytes(&args, &patch);
    let mut bad = Vec::new();
    let v: serde_json::Value = match serde_json::from_str(&run.stdout) {
        Ok(v) => v,
        Err(e) => return vec![format!("invalid JSON ({e}): {}{}", run.stdout, run.stderr)],
    };
    if run.code != expect.exit {
        bad.push(format!(
            "exit {} (want {})\n{}",
            run.code, expect.exit, run.stderr
        ));
    }
    if let Some(f) = &expect.format {
        if v["format"] != f.as_str() {
            bad.push(format!("format {} (want {f})", v["format"]));
        }
    }
    let kinds: Vec<&str> = v["notices"]
        .as_array()
        .expect("notices is an array")
        .iter()
        .filter_map(|n| n["kind"].as_str())
        .collect();
    for n in &expect.notices {
        if !kinds.contains(&n.as_str()) {
            bad.push(format!("no {n:?} notice; got {kinds:?}"));
        }
    }
    let errors: Vec<&str> = v["errors"]
        .as_array()
        .expect("errors is an array")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    match &expect.error {
        Some(k) if !errors.contains(&k.as_str()) => {
            bad.push(format!("no {k:?} error; got {errors:?}"))
        }
        None if !errors.is_empty() => bad.push(format!("unexpected errors {errors:?}")),
        _ => {}
    }
    let said = format!("{}{}", run.stdout, run.stderr);
    for m in &expect.messages {
        if !said.contains(m.as_str()) {
            bad.push(format!("the output does not say {m:?}:\n{said}"));
        }
    }
    let got: BTreeMap<String, Vec<u8>> = r
        .tree()
        .into_iter()
        .map(|(path, (_, bytes))| (path, bytes))
        .collect();
    let want = if expect.exit == 0 {
        files_below(&case.join("after"))
    } else {
        if r.state() != state {
            bad.push("a refusal changed the tree, the index or HEAD".to_string());
        }
        before
    };
    if got != want {
        let shown = |t: &BTreeMap<String, Vec<u8>>| -> String {
            t.iter()
                .map(|(p, b)| format!("  {p}: {:?}\n", String::from_utf8_lossy(b)))
                .collect()
        };
        bad.push(format!(
            "tree differs\n want:\n{} got:\n{}",
            shown(&want),
            shown(&got)
        ));
    }
    bad
}

#[test]
fn every_dialect_fixture_gives_its_expected_bytes_status_and_notices() {
    let cases = cases();
    assert!(!cases.is_empty(), "the dialect cases are found");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().expect("name").to_string_lossy();
        for b in run_case(case) {
            failures.push(format!("{name}: {b}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every notice kind and every error kind (the enums in `report/kinds.rs`, the only way the
/// code names one) is listed in docs/json.md.
#[test]
fn every_notice_and_error_kind_is_documented_in_docs_json_md() {
    use git_llm_apply::report::kinds::{ErrorKind, NoticeKind};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/json.md")).expect("docs/json.md");
    let missing: Vec<&str> = NoticeKind::ALL
        .iter()
        .map(|k| k.as_str())
        .filter(|k| !doc.contains(&format!("| `{k}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/json.md's notice table lacks {missing:?}"
    );
    // The errors are listed in the paragraph that opens with "An **error** has `kind`".
    let at = doc
        .find("An **error** has `kind`")
        .expect("the errors paragraph");
    let paragraph = &doc[at..at + doc[at..].find("\n\n").expect("its end")];
    let missing: Vec<&str> = ErrorKind::ALL
        .iter()
        .map(|k| k.as_str())
        .filter(|k| !paragraph.contains(&format!("`{k}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/json.md's error paragraph lacks {missing:?}"
    );
}
