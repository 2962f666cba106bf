//! `git llm-apply [PATCH]...`: read, parse, plan, gate, write, report.

use crate::report::kinds::{ErrorKind, Kinded, NoticeKind};
use std::path::PathBuf;

use super::hooks::{self as apply_hooks, HookRuns};
use super::options::{ApplyOptions, Patches};
use super::progress;
use super::session::{self, failed, Session, SnapshotRequest};
use crate::gate::hooks::{HookKind, Hooks, Mode};
use crate::gate::{self, Approved, Verdict};
use crate::patch::{Format, Notice, Patch};
use crate::plan::{self, Plan};
use crate::repo::{Repo, WorkTree};
use crate::report::{ErrorReport, FileOutcome, Report, RunFlags, RunStatus};
use crate::snapshot::PatchDigest;
use crate::sys::durable::Durability;
use crate::{input, parse, proof, snapshot, write};

/// Apply (or check) a patch: the report of the run, refusals and errors included.
pub fn run(options: ApplyOptions) -> Report {
    match apply(options) {
        Ok(r) => r,
        Err(r) => *r,
    }
}

/// Why an apply stopped, in the apply's own words (the errors of the stages it calls keep
/// theirs).
#[derive(Debug, thiserror::Error)]
enum ApplyError {
    #[error("--session {0:?}: a session name is 1 to 128 characters, without spaces")]
    BadSession(String),
    #[error("--index needs a git repository")]
    IndexOutsideRepo,
    /// A patch text that does not parse, named when there are several or it is a file.
    #[error("{}{source}", name.as_ref().map(|n| format!("{n}: ")).unwrap_or_default())]
    Parse {
        name: Option<String>,
        source: parse::ParseError,
    },
    #[error("reading the work tree failed: {0}")]
    ReadWorkTree(#[source] std::io::Error),
    /// The gate's reason, a sentence of its own.
    #[error("{reason}")]
    Vetoed {
        kind: gate::VetoKind,
        reason: String,
    },
    /// `run` is the post hook's run as it describes itself.
    #[error("{run}; --verify rolled the apply back: every file is as it was before")]
    Verify { run: String },
    #[error(
        "the planned result failed its check against the patch ({0}); nothing was written. \
         This is a fault in git-llm-apply, not in the patch as such: resending the hunk \
         with more context may avoid it"
    )]
    Unproven(proof::Failure),
}

impl Kinded for ApplyError {
    fn kind(&self) -> ErrorKind {
        match self {
            ApplyError::BadSession(_) | ApplyError::IndexOutsideRepo => ErrorKind::Usage,
            ApplyError::Parse { source, .. } => source.kind(),
            ApplyError::ReadWorkTree(_) => ErrorKind::Io,
            ApplyError::Vetoed { kind, .. } => kind.kind(),
            ApplyError::Verify { .. } => ErrorKind::Verify,
            ApplyError::Unproven(_) => ErrorKind::InternalCheck,
        }
    }
}

fn apply(options: ApplyOptions) -> Result<Report, Box<Report>> {
    let ApplyOptions {
        patches,
        check,
        partial,
        format: forced,
        revert,
        index,
        no_snapshot,
        verify,
        label,
        session: tag,
        dir,
        config,
        prune,
    } = options;
    check_usage(tag.as_deref(), index, &dir)?;
    let label = label.as_deref().and_then(snapshot::one_line);
    let edits = match &patches {
        Patches::Edits(ops) => Some(ops.clone()),
        _ => None,
    };
    let cwd = session::start_dir(dir)?;
    // git config is read by the caller, or here: in this process, no git runs for it.
    let config = config.unwrap_or_else(|| crate::git::config::Pending::start(&cwd));
    let (repo, root) = open_repo(&config, &cwd)?;
    // The size limit is the config's; until the config is read, the default limit stands in
    // (a patch over it waits for the config and is read again under its limit), and the
    // patch is held to the config's own limit once it is known.
    let inputs = read_inputs(patches, &cwd, &config)?;
    let edits = edits.map(|ops| relative_paths(ops, &root));
    let looked_at = WorkTree::new(&root);
    // The patch's digest is for its snapshot: a run that records none does not hash it.
    let digest = !check && !no_snapshot;
    let (parsed, patch_sha256) =
        parse_and_digest(&inputs, edits.as_deref(), forced, &looked_at, digest);
    // One read of git config serves the whole run (the size limit, the hooks' settings); an
    // invalid one is the error, whatever the patch.
    let config = super::checked_config(&config).map_err(|e| failed(&e))?;
    if let Some(e) = input::over_limit(&inputs, config.max_patch_size) {
        return Err(failed(&e));
    }
    // Every write of this run is flushed as its config says: the snapshot and the journal
    // through the repository, the work tree through the gate's token.
    let durability = super::durability(&config);
    let repo = repo.map(|mut r| {
        r.durability = durability;
        r
    });
    // Before anything else is read or written: the lock, and the recovery of an interrupted
    // apply.
    let records = !check && !no_snapshot;
    let session = repo
        .as_ref()
        .map(|r| session::open(r, records))
        .transpose()?;
    let extra_notices = run_notices(session.as_ref(), repo.is_some());
    // A recording run hashes what it reads, for the snapshot.
    let wt = match &repo {
        Some(r) if records => WorkTree::new(&root).hashing_reads(
            r.repo.object_hash(),
            crate::repo::IndexIds::new(r, config.converts_on_add),
        ),
        _ => WorkTree::new(&root),
    };
    // A recovery put files back after the patch was parsed: it is parsed again against them
    // (a SEARCH/REPLACE block that names no file is matched to the files as they are now).
    let parsed = match &session {
        Some(s) if s.recovered => parse_inputs(&inputs, edits.as_deref(), forced, &looked_at),
        _ => parsed,
    };
    let mut original = parsed?;
    // What is applied: the patch itself, or for --revert its reverse (git reads the original
    // for three-way either way).
    let mut reversed = revert.then(|| original.reversed());
    match &mut reversed {
        Some(r) => r.notices.extend(extra_notices),
        None => original.notices.extend(extra_notices),
    }
    let patch: &Patch = reversed.as_ref().unwrap_or(&original);
    // An edit's JSON has no prose around it to describe it.
    let intent = label.or_else(|| {
        edits
            .is_none()
            .then(|| inputs.iter().find_map(|i| input::intent(&i.text)))
            .flatten()
    });
    let mut request = patch_sha256.map(|sha| SnapshotRequest {
        prune,
        ..SnapshotRequest::new(sha, intent, tag)
    });
    let history_depth = repo
        .as_ref()
        .map(plan::history::depth_from_config)
        .transpose()
        .map_err(|e| failed(&e))?;
    progress::stage("planning");
    let mut plan = make_plan(repo.as_ref(), history_depth, &original, patch, revert, &wt)?;
    if let Some(r) = &repo {
        warn_unmerged(r, &mut plan);
    }
    // The snapshot will want the blob ids of the states before and after: a big file's are
    // hashed on the other core while the plan is proven.
    if let (Some(r), true) = (&repo, records) {
        let states = plan.changes.iter().flat_map(|c| [&c.before, &c.after]);
        let contents = states.flatten().map(|f| f.bytes.clone()).collect();
        crate::repo::Content::hash_ahead(contents, r.repo.object_hash());
    }
    let found = repo
        .as_ref()
        .map(|r| Hooks::from_config(&root, r.common_dir(), &config))
        .transpose()
        .map_err(|e| failed(&e))?;
    let verify = verify || found.as_ref().is_some_and(|h| h.settings.verify);
    let mut hooks = HookRuns::new(found.as_ref(), hook_mode(check, revert), verify);
    let planning = Planning {
        repo: repo.as_ref(),
        history_depth,
        original: &original,
        patch,
        revert,
        wt: &wt,
    };
    pre_hooks(&mut hooks, &planning, &mut plan, partial, check)?;
    hooks.prepare_post(patch, &plan).map_err(|e| failed(&e))?;
    #[cfg(debug_assertions)]
    corrupt_for_tests(&mut plan);
    // --index: each touched path's index entry is decided before anything is written.
    let staging = match repo.as_ref().filter(|_| index && !plan.changes.is_empty()) {
        Some(r) => match write::index::plan(r, &plan.changes) {
            Ok(s) => s,
            Err(refused) => return Ok(index_refused(&plan, patch.format, check, revert, &refused)),
        },
        None => Vec::new(),
    };
    if let Some(request) = &mut request {
        request.index = staging.clone();
        // The counts are for the snapshot's record: a check records nothing.
        if session.is_some() && records {
            request.lines = super::lines::path_lines(&plan);
        }
        // Under --verify the post hook may still reject the apply: stage once it passed.
        request.stage_with_write = !hooks.verify;
    }
    let record = match (&session, &request) {
        (Some(s), Some(request)) if !no_snapshot => Some((s, request)),
        _ => None,
    };
    let (mut report, token) = decide_and_write(
        &plan, patch, check, partial, revert, &root, record, &mut hooks, durability,
    );
    // A recorded write staged under its journal; an unrecorded one stages here.
    let staged = report.snapshot.is_some() && !hooks.verify;
    if let (Some(r), Some(token), true) = (&repo, &token, index && report.written && !staged) {
        stage_unrecorded(r, token, &staging, &mut report);
    }
    Ok(report)
}

/// Stage `staging` after a write that recorded no snapshot (or one whose `--verify` hook had
/// to pass first); a failure is reported with the write, which stands.
fn stage_unrecorded(
    repo: &Repo,
    token: &Approved,
    staging: &[write::index::Staging],
    report: &mut Report,
) {
    if let Err(e) = write::index::stage(repo, token, staging) {
        report.errors.push(ErrorReport::of(&e));
    }
}

/// The repository around `cwd` (the one the config reader opened, when it did), and the top
/// of its work tree (`cwd` itself outside a repository).
fn open_repo(
    config: &crate::git::config::Pending,
    cwd: &std::path::Path,
) -> Result<(Option<Repo>, PathBuf), Box<Report>> {
    let repo = session::repo_of(Some(config), cwd).map_err(|e| failed(&e))?;
    let root = repo
        .as_ref()
        .map_or_else(|| cwd.to_path_buf(), |r| r.work_dir.clone());
    Ok((repo, root))
}

/// What the hooks are told the run does.
fn hook_mode(check: bool, revert: bool) -> Mode {
    if check {
        Mode::Check
    } else if revert {
        Mode::Revert
    } else {
        Mode::Apply
    }
}

/// Options that are wrong whatever the patch: a session name git-llm-apply cannot record,
/// `--index` outside a repository.
fn check_usage(tag: Option<&str>, index: bool, dir: &Option<PathBuf>) -> Result<(), Box<Report>> {
    if let Some(t) = tag {
        if !snapshot::valid_session(t) {
            return Err(failed(&ApplyError::BadSession(t.to_string())));
        }
    }
    if index && repo_required(dir) {
        return Err(failed(&ApplyError::IndexOutsideRepo));
    }
    Ok(())
}

/// What the run says about itself before the patch's own notices: what opening the session
/// found (a recovery, no lock), or that there is no repository.
fn run_notices(session: Option<&Session>, in_repo: bool) -> Vec<Notice> {
    let mut notices = session.map(|s| s.notices.clone()).unwrap_or_default();
    if !in_repo {
        notices.push(Notice::new(
            NoticeKind::NotARepository,
            "not inside a git repository: text-level strategies only, no snapshot",
        ));
    }
    notices
}

/// Parse the inputs, and with `digest` take the patch's digest (the snapshot records it; a
/// run that records none, `--check` or `--no-snapshot`, does not hash it). A big patch's
/// digest is taken on a second thread while the patch is parsed: hashing it costs no wall
/// time. The parser only looks at the work tree (where a SEARCH/REPLACE block names no file);
/// the plan reads it again.
fn parse_and_digest(
    inputs: &[input::Input],
    edits: Option<&[crate::parse::edit::EditOp]>,
    forced: Option<Format>,
    looked_at: &WorkTree,
    digest: bool,
) -> (Result<Patch, Box<Report>>, Option<PatchDigest>) {
    let digest_of = || PatchDigest::of_parts(inputs.iter().map(|i| i.text.as_bytes()));
    let size = inputs.iter().map(|i| i.text.len()).sum::<usize>();
    if size >= crate::sys::threads::BIG {
        crate::sys::threads::warm_for_big_work();
    }
    if !digest {
        return (parse_inputs(inputs, edits, forced, looked_at), None);
    }
    if size < 1 << 18 {
        return (
            parse_inputs(inputs, edits, forced, looked_at),
            Some(digest_of()),
        );
    }
    match crate::sys::threads::join(|| parse_inputs(inputs, edits, forced, looked_at), digest_of) {
        (parsed, Some(sha)) => (parsed, Some(sha)),
        (parsed, None) => (parsed, Some(digest_of())),
    }
}

/// What planning the patch again needs.
struct Planning<'a> {
    repo: Option<&'a Repo>,
    history_depth: Option<usize>,
    original: &'a Patch,
    patch: &'a Patch,
    revert: bool,
    wt: &'a WorkTree,
}

/// Show the plan to the `pre-llm-apply` hook, if there is one and it has something to judge.
/// A plan that would be refused is shown too when the patch names blobs we lack: the hook may
/// fetch them (fetch-missing-blobs in a shallow or partial clone), and then the patch is
/// planned again so the three-way strategy can use them, and the hook judges the plan that
/// will actually be written.
fn pre_hooks(
    hooks: &mut HookRuns<'_>,
    p: &Planning<'_>,
    plan: &mut Plan,
    partial: bool,
    check: bool,
) -> Result<(), Box<Report>> {
    if !hooks.has(HookKind::Pre) {
        return Ok(());
    }
    let absent = match p.repo {
        Some(r) => apply_hooks::absent_preimages(r, p.original, p.revert),
        None => Vec::new(),
    };
    if !apply_hooks::gate_has_work(plan, partial) && absent.is_empty() {
        return Ok(());
    }
    let planned = apply_hooks::planned_report(plan, p.patch.format, partial, check, p.revert);
    hooks
        .run_pre(p.patch, plan, &planned)
        .map_err(|e| failed(&e))?;
    if !hooks.pre_passed() || absent.is_empty() {
        return Ok(());
    }
    // The repository already open sees what the hook fetched: its object store looks for
    // new packs when an object is missing.
    let Some(repo) = p
        .repo
        .filter(|r| apply_hooks::absent_preimages(r, p.original, p.revert).len() < absent.len())
    else {
        return Ok(());
    };
    *plan = make_plan(
        Some(repo),
        p.history_depth,
        p.original,
        p.patch,
        p.revert,
        p.wt,
    )?;
    if apply_hooks::gate_has_work(plan, partial) {
        let planned = apply_hooks::planned_report(plan, p.patch.format, partial, check, p.revert);
        hooks
            .run_pre(p.patch, plan, &planned)
            .map_err(|e| failed(&e))?;
    }
    Ok(())
}

/// The patch texts, read under the config's size limit: the default one while the config is
/// still being read, and the config's once a text is over that (stdin, which cannot be read
/// twice, waits for the config first).
fn read_inputs(
    patches: Patches,
    cwd: &std::path::Path,
    config: &crate::git::config::Pending,
) -> Result<Vec<input::Input>, Box<Report>> {
    let configured = || {
        super::checked_config(config)
            .map(|c| c.max_patch_size)
            .map_err(|e| failed(&e))
    };
    match patches {
        Patches::Files(names) => {
            // Only regular files can be read again: stdin, a pipe or a device waits for the
            // config's limit first.
            let again = !names.is_empty()
                && names
                    .iter()
                    .all(|n| n != "-" && std::fs::metadata(cwd.join(n)).is_ok_and(|m| m.is_file()));
            let (limit, provisional) = match config.now() {
                Some(c) => (c.max_patch_size, false),
                None if !again => (configured()?, false),
                None => (input::DEFAULT_MAX_PATCH_SIZE, true),
            };
            match input::read(&names, cwd, limit) {
                Err(input::InputError::TooLarge { .. }) if provisional => {
                    input::read(&names, cwd, configured()?)
                }
                read => read,
            }
            .map_err(|e| failed(&e))
        }
        // The edits' JSON stands for them: its size is held to the limit, and its digest is
        // the one the snapshot records.
        Patches::Edits(ops) => read_inputs(
            Patches::Text(serde_json::to_string(&ops).expect("edits serialize")),
            cwd,
            config,
        ),
        // A tool call's argument is held to the same limit as a file.
        Patches::Text(text) => {
            let limit = configured()?;
            if text.len() as u64 > limit {
                let e = input::InputError::TooLarge {
                    name: "the patch".into(),
                    size: Some(text.len() as u64),
                    limit,
                };
                return Err(failed(&e));
            }
            Ok(vec![input::Input {
                name: "<stdin>".into(),
                size: text.len() as u64,
                text: text.into(),
            }])
        }
    }
}

/// An edit's path as agents send it, absolute (Claude's tools, the text-editor tool) or
/// relative (a leading `./` dropped): one inside the work tree is made relative to its top;
/// any other is left for the planner to refuse.
fn relative_paths(
    mut ops: Vec<crate::parse::edit::EditOp>,
    root: &std::path::Path,
) -> Vec<crate::parse::edit::EditOp> {
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for op in &mut ops {
        let path = op.path_mut();
        // `./a.py` is `a.py`, as in a SEARCH/REPLACE block or a Codex patch.
        while let Some(rest) = path.strip_prefix("./") {
            *path = rest.to_string();
        }
        let p = std::path::Path::new(path.as_str());
        if !p.is_absolute() {
            continue;
        }
        // The file may not exist yet (create): its directory is resolved, then its name put back.
        let resolved = match (
            p.parent().and_then(|d| d.canonicalize().ok()),
            p.file_name(),
        ) {
            (Some(d), Some(name)) => d.join(name),
            _ => p.to_path_buf(),
        };
        for top in [root, real_root.as_path()] {
            if let Ok(rel) = resolved.strip_prefix(top).or_else(|_| p.strip_prefix(top)) {
                if let Some(s) = rel.to_str().filter(|s| !s.is_empty()) {
                    *path = s.replace('\\', "/");
                    break;
                }
            }
        }
    }
    ops
}

/// Parse every input and put their file patches together, in order; structured edits are
/// turned into their patch instead.
fn parse_inputs(
    inputs: &[input::Input],
    edits: Option<&[crate::parse::edit::EditOp]>,
    forced: Option<Format>,
    wt: &WorkTree,
) -> Result<Patch, Box<Report>> {
    if let Some(ops) = edits {
        return parse::edit::to_patch(ops, wt).map_err(|e| {
            let mut r = failed(&e);
            if e.is_refusal() {
                r.status = RunStatus::Refused;
                r.format = Some(Format::SearchReplace);
            }
            r
        });
    }
    let mut combined: Option<Patch> = None;
    for inp in inputs {
        let p = parse::parse_shared(&inp.text, forced, wt).map_err(|source| {
            // A cut-off patch, or one that does not say which file it edits: a refusal, not
            // bad input, and nothing of the patch is written (not even with --partial).
            let refusal = source.is_refusal();
            let named = inputs.len() > 1 || inp.name != "<stdin>";
            let mut r = failed(&ApplyError::Parse {
                name: named.then(|| inp.name.clone()),
                source,
            });
            if refusal {
                r.status = RunStatus::Refused;
                r.format = Some(forced.unwrap_or_else(|| parse::detect(&inp.text)));
            }
            r
        })?;
        match &mut combined {
            None => combined = Some(p),
            Some(c) => {
                c.files.extend(p.files);
                c.notices.extend(p.notices);
            }
        }
    }
    Ok(combined.expect("at least one input was read"))
}

/// Plan `patch` (the reversed one for `--revert`; `original` is what git reads for 3-way):
/// strategy 2 through git, strategy 3 from history and ghost snapshots, then the text passes.
fn make_plan(
    repo: Option<&Repo>,
    history_depth: Option<usize>,
    original: &Patch,
    patch: &Patch,
    revert: bool,
    wt: &WorkTree,
) -> Result<Plan, Box<Report>> {
    let git3 = repo.map(|repo| plan::three_way::GitThreeWay {
        repo,
        originals: &original.files,
        reverse: revert,
    });
    let states = repo.map(|repo| snapshot::SnapshotStates { repo });
    let history = match (repo, history_depth) {
        (Some(repo), Some(depth)) => Some(plan::history::History {
            repo,
            depth,
            recorded: states
                .as_ref()
                .map(|s| s as &dyn plan::history::RecordedStates),
        }),
        _ => None,
    };
    let opts = plan::Options {
        three_way: git3.as_ref().map(|g| g as &dyn plan::ThreeWay),
        history: history.as_ref().map(|h| h as &dyn plan::ThreeWay),
    };
    plan::plan(patch, wt, &opts).map_err(|e| failed(&ApplyError::ReadWorkTree(e)))
}

/// Whether the directory we run in lies outside every repository.
fn repo_required(dir: &Option<PathBuf>) -> bool {
    let here = dir.clone().or_else(|| std::env::current_dir().ok());
    here.is_some_and(|d| matches!(Repo::discover(&d), Ok(None)))
}

/// The one place where a plan's outcome becomes a run status and an exit code (DESIGN §2):
/// the plan's own verdict, then the gate (the pre-hook runs), the write, and the post hook.
#[allow(clippy::too_many_arguments)]
fn decide_and_write(
    plan: &Plan,
    patch: &Patch,
    check: bool,
    partial: bool,
    revert: bool,
    root: &std::path::Path,
    record: Option<(&Session, &SnapshotRequest)>,
    hooks: &mut HookRuns<'_>,
    durability: Durability,
) -> (Report, Option<Approved>) {
    let format = patch.format;
    let flags = RunFlags {
        check,
        reverse: revert,
    };
    // The proof comes before every verdict: a plan that fails it is refused whatever it says.
    progress::stage("checking the plan");
    let proof = match proof::prove(patch, plan) {
        Ok(p) => p,
        Err(failure) => return (unproven(plan, format, flags, root, &failure), None),
    };
    let nothing_to_write = plan.changes.is_empty();
    let (status, write_it) = verdict(plan.all_ok(), nothing_to_write, check, partial);
    let refused = |why: &str, error: &dyn Kinded, hooks: &HookRuns<'_>| {
        let mut r = Report::from_plan(plan, format, RunStatus::Refused, flags);
        r.errors.push(ErrorReport::of(error));
        r.hooks = hooks.reports.clone();
        not_written_because(&mut r, why);
        r
    };
    let mut report = Report::from_plan(plan, format, status, flags);
    report.hooks = hooks.reports.clone();
    // --check asks the gate too, so a harness learns whether the apply would be allowed.
    let gated = write_it || (check && !nothing_to_write && status != RunStatus::Refused);
    if !gated {
        return (report, None);
    }
    progress::stage("approving");
    let token = match gate::approve(plan, &proof, hooks.pre_runs(), durability) {
        Verdict::Vetoed { kind, reason } => {
            return (
                refused(
                    "not written: the pre-llm-apply hook refused the apply",
                    &ApplyError::Vetoed { kind, reason },
                    hooks,
                ),
                None,
            );
        }
        Verdict::Approved(token) => token,
    };
    if !write_it {
        return (report, None);
    }
    progress::stage("recording the snapshot and writing");
    let done = match session::write(root, &token, record, &report.summary) {
        Ok(done) => done,
        Err(e) => {
            return (
                refused("not written: writing another file failed", &e, hooks),
                None,
            )
        }
    };
    report.written = true;
    report.snapshot = done.snapshot.map(|id| id.ref_name());
    report.prune_pending = done.prune_pending;
    report.notices.extend(done.notices);
    match hooks.run_post(&report) {
        Some(run) if !run.status.passed() && hooks.verify => {
            let recorded = record.zip(done.snapshot).map(|((s, _), id)| (s, id));
            let back = apply_hooks::roll_back(root, &token, recorded);
            let mut r = refused(
                "rolled back: the post-llm-apply hook failed under --verify",
                &ApplyError::Verify {
                    run: run.describe(),
                },
                hooks,
            );
            r.notices.extend(back.notices.iter().cloned());
            if !back.unrestored.is_empty() {
                r.written = true;
                r.snapshot = report.snapshot.clone();
                r.errors.push(ErrorReport::of(&back.unrestored_error()));
            }
            return (r, None);
        }
        Some(run) if !run.status.passed() => {
            report.notices.push(Notice::new(
                NoticeKind::PostHookFailed,
                format!(
                    "{}; the apply stands (--verify or llm-apply.verify rolls back instead)",
                    run.describe()
                ),
            ));
        }
        Some(_) => {}
        None if hooks.verify => report.notices.push(Notice::new(
            NoticeKind::NothingVerified,
            "--verify: there is no post-llm-apply hook, so nothing was verified",
        )),
        None => {}
    }
    report.hooks = hooks.reports.clone();
    (report, Some(token))
}

/// The plan failed its proof: refused. A file that changed after the plan read it (a big
/// file's mapped bytes then show the change) fails the proof through no fault of the plan,
/// and is said as what it is.
fn unproven(
    plan: &Plan,
    format: Format,
    flags: RunFlags,
    root: &std::path::Path,
    failure: &proof::Failure,
) -> Report {
    let mut r = Report::from_plan(plan, format, RunStatus::Refused, flags);
    let (error, why) = match write::unchanged_since_read(root, &plan.changes) {
        Err(changed) => (
            ErrorReport::of(&changed),
            "not written: a file changed while it was being patched",
        ),
        Ok(()) => (
            ErrorReport::of(&ApplyError::Unproven(failure.clone())),
            "not written: the plan failed its internal check",
        ),
    };
    r.errors.push(error);
    not_written_because(&mut r, why);
    r
}

/// A proven plan's run status, and whether it is written: every file applies (or nothing is
/// left to do), or some do not and `--partial` writes the ones that do; `--check` writes
/// nothing either way.
fn verdict(all_ok: bool, nothing_to_write: bool, check: bool, partial: bool) -> (RunStatus, bool) {
    let status = if all_ok && nothing_to_write && !check {
        RunStatus::AlreadyApplied
    } else if all_ok {
        if check {
            RunStatus::Checked
        } else {
            RunStatus::Applied
        }
    } else if partial && !nothing_to_write {
        RunStatus::Partial
    } else {
        RunStatus::Refused
    };
    let write_it = !check && matches!(status, RunStatus::Applied | RunStatus::Partial);
    (status, write_it)
}

/// `--index` refused: a path's index entry cannot take exactly the patch's change.
fn index_refused(
    plan: &Plan,
    format: Format,
    check: bool,
    revert: bool,
    refused: &[write::index::Unstageable],
) -> Report {
    let mut r = Report::from_plan(
        plan,
        format,
        RunStatus::Refused,
        RunFlags {
            check,
            reverse: revert,
        },
    );
    r.errors.extend(refused.iter().map(ErrorReport::of));
    not_written_because(
        &mut r,
        "not written: --index cannot stage the patch's change alone",
    );
    r
}

/// Say why the files that would have applied were not written (the report's default reason
/// is another file failing, which is not the case for a gate's or a hook's refusal).
fn not_written_because(r: &mut Report, why: &str) {
    for f in &mut r.files {
        if f.status == FileOutcome::Skipped {
            f.problems.retain(|p| !p.starts_with("not written:"));
            f.problems.push(why.to_string());
        }
    }
}

/// Test-only: `GIT_LLM_APPLY_TEST_CORRUPT_PLAN=1` changes one byte of the first planned
/// write after planning, as a planner bug would, so tests can see the proof refuse it.
#[cfg(debug_assertions)]
fn corrupt_for_tests(plan: &mut Plan) {
    if std::env::var_os("GIT_LLM_APPLY_TEST_CORRUPT_PLAN").is_none() {
        return;
    }
    let flip = |bytes: &mut Vec<u8>| match bytes.last_mut() {
        Some(b) if *b != b'\n' => *b ^= 0x20,
        _ => bytes.insert(0, b'#'),
    };
    if let Some(f) = plan
        .files
        .iter_mut()
        .find(|f| !f.evidence.writes.is_empty())
    {
        if let Some((path, Some(state))) = f.evidence.writes.last_mut() {
            flip(state.bytes.make_mut());
            let path = path.clone();
            if let Some(c) = plan.changes.iter_mut().find(|c| c.path == path) {
                if let Some(a) = c.after.as_mut() {
                    flip(a.bytes.make_mut());
                }
            }
        }
    }
}

/// A file in conflict in the index (mid-merge) is patched as the work tree has it, markers
/// and all: said in a warning naming the stages, so that nobody stages the result unread.
fn warn_unmerged(r: &crate::repo::Repo, plan: &mut plan::Plan) {
    let paths: Vec<&str> = plan
        .files
        .iter()
        .filter(|f| f.status == plan::FileStatus::Applied)
        .map(|f| f.path())
        .collect();
    let unmerged = r.unmerged(&paths);
    for f in plan.files.iter_mut() {
        let Some((_, stages)) = unmerged.iter().find(|(p, _)| p == f.path()) else {
            continue;
        };
        let names: Vec<&str> = stages
            .iter()
            .map(|s| match s {
                1 => "1 (base)",
                2 => "2 (ours)",
                _ => "3 (theirs)",
            })
            .collect();
        let message = format!(
            "unmerged (index stages {}): the patch was applied to the file as it is, conflict \
             markers and all; check the result before resolving it with git add",
            names.join(", ")
        );
        f.warnings.push(plan::diagnose::Warning::new(
            plan::diagnose::WarningKind::Unmerged,
            None,
            message,
        ));
    }
}
