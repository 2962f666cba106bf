//! The `git apply` output classifier against recorded transcripts of every git version we have.
//!
//! `tests/fixtures/git-transcripts/<version>/<scenario>/` holds what git printed;
//! `tests/fixtures/git-apply-outcomes.txt` says what each run did per file. One test per
//! version directory, so a version whose wording breaks the classifier is named in the failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use git_llm_apply::git::apply_output::{classify, FileName, Outcome};
use git_llm_apply::text::quote::unquote;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `2.47.3` → [2, 47, 3], so versions compare numerically.
fn version(text: &str) -> Vec<u32> {
    text.split('.')
        .map(|p| p.parse().unwrap_or_else(|_| panic!("bad version {text:?}")))
        .collect()
}

fn selects(selector: &str, v: &[u32]) -> bool {
    selector == "*"
        || selector.split(',').all(|part| {
            if let Some(bound) = part.strip_prefix(">=") {
                v >= version(bound).as_slice()
            } else if let Some(bound) = part.strip_prefix('<') {
                v < version(bound).as_slice()
            } else {
                panic!("bad version selector {selector:?}")
            }
        })
}

#[derive(Debug)]
struct ExpectedFile {
    name: FileName,
    outcome: Outcome,
    kinds: BTreeSet<String>,
}

#[derive(Debug)]
struct Row {
    line: usize,
    scenario: String,
    versions: String,
    files: Vec<ExpectedFile>,
    run: BTreeSet<String>,
}

/// Whitespace-separated tokens; a `"…"` part (C-quoted like git's paths) may hold spaces.
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in line.chars() {
        if quoted {
            cur.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
        } else if c.is_whitespace() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            quoted = c == '"';
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn kind_set(list: &str) -> BTreeSet<String> {
    list.split(',')
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

fn outcome(text: &str) -> Outcome {
    match text {
        "applied" => Outcome::Applied,
        "conflicted" => Outcome::Conflicted,
        "skipped" => Outcome::Skipped,
        _ => panic!("bad outcome {text:?}"),
    }
}

fn table() -> Vec<Row> {
    let text = read(&fixtures().join("git-apply-outcomes.txt"));
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let toks = tokens(line);
        assert!(toks.len() >= 2, "line {}: too few columns", n + 1);
        let mut row = Row {
            line: n + 1,
            scenario: toks[0].clone(),
            versions: toks[1].clone(),
            files: Vec::new(),
            run: BTreeSet::new(),
        };
        for tok in &toks[2..] {
            if let Some(kinds) = tok.strip_prefix("run:") {
                row.run = kind_set(kinds);
                continue;
            }
            let (path, result) = tok
                .rsplit_once('=')
                .unwrap_or_else(|| panic!("line {}: bad token {tok:?}", n + 1));
            let (out, kinds) = result.split_once(':').unwrap_or((result, ""));
            let name = match path.split_once("->") {
                Some((old, new)) => FileName::renamed(unquote(old), unquote(new)),
                None => FileName::new(unquote(path)),
            };
            row.files.push(ExpectedFile {
                name,
                outcome: outcome(out),
                kinds: kind_set(kinds),
            });
        }
        rows.push(row);
    }
    rows
}

/// Paths `git status --porcelain` reports as unmerged (`UU`, `AA`, …), unquoted.
fn unmerged_paths(status: &str) -> BTreeSet<String> {
    status
        .lines()
        .filter(|l| l.len() > 3)
        .filter(|l| {
            let xy = &l[..2];
            xy.contains('U') || xy == "AA" || xy == "DD"
        })
        .map(|l| unquote(&l[3..]))
        .collect()
}

fn scenarios(version_dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(version_dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", version_dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let name = p
                .file_name()
                .expect("a directory has a name")
                .to_string_lossy()
                .into_owned();
            (name, p)
        })
        .collect();
    out.sort();
    out
}

/// Every mismatch between the classifier, the table and the recorded status, for one version.
fn check_version(dir_name: &str) -> Vec<String> {
    let v = version(dir_name);
    let rows = table();
    let dir = fixtures().join("git-transcripts").join(dir_name);
    let mut problems = Vec::new();
    let cases = scenarios(&dir);
    assert!(
        cases.len() >= 99,
        "{dir_name}: only {} scenarios",
        cases.len()
    );
    for (scenario, path) in cases {
        let matching: Vec<&Row> = rows
            .iter()
            .filter(|r| r.scenario == scenario && selects(&r.versions, &v))
            .collect();
        let row = match matching.as_slice() {
            [row] => *row,
            [] => {
                problems.push(format!("{scenario}: no expectation for {dir_name}"));
                continue;
            }
            many => {
                let lines: Vec<usize> = many.iter().map(|r| r.line).collect();
                problems.push(format!("{scenario}: rows {lines:?} all match {dir_name}"));
                continue;
            }
        };
        let stdout = read(&path.join("stdout"));
        let stderr = read(&path.join("stderr"));
        let exit: i32 = read(&path.join("exit_code"))
            .trim()
            .parse()
            .expect("exit_code holds a number");
        let known: Vec<FileName> = row.files.iter().map(|f| f.name.clone()).collect();
        let got = classify(&stdout, &stderr, Some(exit), &known);
        let at = format!("{scenario} (row {})", row.line);

        if got.files.len() != row.files.len() {
            let paths: Vec<&str> = got.files.iter().map(|f| f.path.as_str()).collect();
            problems.push(format!("{at}: classified files {paths:?}"));
        }
        for want in &row.files {
            let Some(f) = got.files.iter().find(|f| f.path == want.name.path) else {
                problems.push(format!("{at}: {} missing", want.name.path));
                continue;
            };
            let kinds: BTreeSet<String> = f.reasons.iter().map(|r| r.kind().to_string()).collect();
            if f.outcome != want.outcome || kinds != want.kinds {
                problems.push(format!(
                    "{at}: {} is {}:{kinds:?}, expected {}:{:?}",
                    f.path,
                    f.outcome.as_str(),
                    want.outcome.as_str(),
                    want.kinds
                ));
            }
        }
        let run: BTreeSet<String> = got.run.iter().map(|r| r.kind().to_string()).collect();
        if run != row.run {
            problems.push(format!("{at}: run {run:?}, expected {:?}", row.run));
        }

        // The table itself, against what git left behind: an unmerged path is conflicted,
        // a conflicted file is unmerged unless it was only checked, and a run that died on
        // its input or options applied nothing.
        let cmd = read(&path.join("cmd"));
        let unmerged = unmerged_paths(&read(&path.join("status_after")));
        for want in &row.files {
            let in_status = unmerged.contains(&want.name.path);
            let conflicted = want.outcome == Outcome::Conflicted;
            if in_status && !conflicted {
                problems.push(format!(
                    "{at}: table disagrees with status_after on {}",
                    want.name.path
                ));
            }
            if conflicted && !in_status && !cmd.contains("--check") {
                problems.push(format!(
                    "{at}: table says conflicted, status_after has no conflict"
                ));
            }
            if exit >= 128 && want.outcome != Outcome::Skipped {
                problems.push(format!("{at}: exit {exit} applies nothing"));
            }
        }
    }
    problems
}

macro_rules! transcript_tests {
    ($($name:ident => $dir:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let problems = check_version($dir);
                assert!(problems.is_empty(), "git {}:\n{}", $dir, problems.join("\n"));
            }
        )*

        /// A new transcript directory needs its own test above.
        #[test]
        fn every_version_directory_has_a_test() {
            let tested: BTreeSet<&str> = [$($dir),*].into_iter().collect();
            let present: BTreeSet<String> =
                std::fs::read_dir(fixtures().join("git-transcripts"))
                    .expect("the transcripts are in tests/fixtures")
                    .map(|e| e.expect("directory entry").path())
                    .filter(|p| p.is_dir())
                    .map(|p| p.file_name().expect("named").to_string_lossy().into_owned())
                    .collect();
            let present: BTreeSet<&str> = present.iter().map(String::as_str).collect();
            assert_eq!(present, tested);
        }
    };
}

transcript_tests! {
    git_2_17_6 => "2.17.6",
    git_2_20_5 => "2.20.5",
    git_2_25_5 => "2.25.5",
    git_2_30_2 => "2.30.2",
    git_2_31_8 => "2.31.8",
    git_2_32_7 => "2.32.7",
    git_2_34_8 => "2.34.8",
    git_2_35_8 => "2.35.8",
    git_2_39_5 => "2.39.5",
    git_2_43_7 => "2.43.7",
    git_2_47_3 => "2.47.3",
    git_2_53_0 => "2.53.0",
    git_2_55_0 => "2.55.0",
}

#[test]
fn every_table_row_names_a_recorded_scenario() {
    let dir = fixtures().join("git-transcripts");
    let mut known = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("transcripts present") {
        let version_dir = entry.expect("directory entry").path();
        if version_dir.is_dir() {
            known.extend(scenarios(&version_dir).into_iter().map(|(s, _)| s));
        }
    }
    for row in table() {
        assert!(
            known.contains(&row.scenario),
            "row {}: no scenario {:?}",
            row.line,
            row.scenario
        );
    }
}
