//! Times `snapshot::create` for one touched file in an existing repository; driven by
//! `scripts/bench-snapshot.sh`, which builds the repositories.
//!
//! Usage: `bench_snapshot <repo dir> <touched path> <runs>`. Prints the first (cold) run and
//! the median of all runs in milliseconds, then removes the snapshots it made.

use std::path::Path;
use std::time::{Duration, Instant};

use git_llm_apply::repo::{FileState, Repo, MODE_FILE};
use git_llm_apply::snapshot::{self, Meta, PatchDigest, Touched};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, path, runs] = args.as_slice() else {
        eprintln!("usage: bench_snapshot <repo dir> <touched path> <runs>");
        std::process::exit(2);
    };
    let runs: usize = runs.parse().expect("runs is a number");
    let opened = Instant::now();
    let repo = Repo::discover(Path::new(dir))
        .expect("open the repository")
        .expect("a repository");
    let open_time = opened.elapsed();

    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        // A different work-tree content each run, so every run writes a new blob and trees.
        let content = format!("edited in run {i}\n");
        std::fs::write(repo.work_dir.join(path), &content).expect("edit the touched file");
        let touched = [Touched {
            path: path.clone(),
            before: None,
            after: Some(FileState {
                bytes: format!("after run {i}\n").into_bytes().into(),
                mode: MODE_FILE,
            }),
        }];
        let meta = Meta {
            session: None,
            patch_sha256: PatchDigest::of(content.as_bytes()),
            intent: Some("benchmark".to_string()),
            undoes: None,
            files: 1,
            added: 1,
            removed: 1,
            index: Vec::new(),
            lines: Default::default(),
        };
        let start = Instant::now();
        snapshot::create(&repo, &touched, &meta).expect("snapshot");
        times.push(start.elapsed());
    }
    let first = times[0];
    let mut sorted = times.clone();
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    snapshot::prune(&repo, 0).expect("remove the benchmark's snapshots");
    println!(
        "open {:.2} ms, first create {:.2} ms, median create {:.2} ms ({runs} runs)",
        ms(open_time),
        ms(first),
        ms(median)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
