//! Times the search for a three-way base (`plan::history`) on a file with a long history;
//! driven by `scripts/bench-history.sh`, which builds the repository.
//!
//! Usage: `bench_history <repo dir> <path> <patch file> <depth> <runs>`. Prints the first
//! (cold) and the median search in milliseconds, what the search read, and the base found.

use std::path::Path;
use std::time::{Duration, Instant};

use git_llm_apply::parse;
use git_llm_apply::plan::history::History;
use git_llm_apply::repo::{Entry, Files, Repo, WorkTree};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, path, patch, depth, runs] = args.as_slice() else {
        eprintln!("usage: bench_history <repo dir> <path> <patch file> <depth> <runs>");
        std::process::exit(2);
    };
    let depth: usize = depth.parse().expect("depth is a number");
    let runs: usize = runs.parse().expect("runs is a number");
    let repo = Repo::discover(Path::new(dir))
        .expect("open the repository")
        .expect("a repository");
    let wt = WorkTree::new(&repo.work_dir);
    let text = std::fs::read_to_string(patch).expect("read the patch");
    let parsed = parse::parse(&text, None, &wt).expect("parse the patch");
    let fp = &parsed.files[0];
    let Ok(Entry::File(current)) = wt.read(path) else {
        panic!("{path} is a file in the work tree");
    };
    let history = History {
        repo: &repo,
        depth,
        recorded: None,
    };

    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let search = history.search(fp, &current);
        times.push(start.elapsed());
        last = Some(search);
    }
    let search = last.expect("at least one run");
    let first = times[0];
    times.sort();
    let median = times[times.len() / 2];
    let base = match &search.found {
        Some(f) => format!("{} {}", f.base.kind, f.base.id),
        None => "none".to_string(),
    };
    println!(
        "depth {depth:>4}: first {:7.2} ms, median {:7.2} ms; {} versions read, {} commits walked ({} touched the file); base: {base}",
        ms(first),
        ms(median),
        search.stats.versions,
        search.stats.commits,
        search.stats.touching,
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
