//! `git llm-apply mcp`: a Model Context Protocol server over stdio. Each tool call is turned
//! into the same `run::*` options the CLI builds and run by the same driver; nothing here
//! re-implements a step of the pipeline. Only protocol messages go to stdout.

mod calls;
pub mod tools;
pub mod transport;

use std::path::PathBuf;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};

use crate::report::log::LogReport;
use crate::report::{self, Report, RunStatus};

/// The server: the directory it serves (`-C DIR`, else where it was started), and whether
/// what it writes is recorded (so `undo` can take it back).
#[derive(Debug, Clone)]
pub struct Server {
    /// The thread the tool calls run on.
    calls: calls::Calls,
    dir: Option<PathBuf>,
    /// The directory is in a git repository (where snapshots are kept).
    in_repo: bool,
    /// Applies and edits are recorded: in a repository, without `--no-snapshot`.
    recorded: bool,
}

/// The config a call reads in `dir` (else the current directory): the last call's while
/// nothing it came from changed (`run/kept.rs`).
fn config_in(dir: &Option<PathBuf>) -> Option<crate::git::config::Pending> {
    let here = match dir {
        Some(d) => Some(d.clone()),
        None => std::env::current_dir().ok(),
    };
    here.filter(|d| d.is_dir())
        .map(|d| crate::run::kept::pending(&d))
}

/// What every result says first when nothing is recorded.
const NOT_RECORDED: &str = "note: this server does not record applies or edits (not a git repository, or started with --no-snapshot): they cannot be undone.";

/// Serve on stdin/stdout until the client goes away. Returns how the server ended:
/// `Applied` (exit 0) when the client closed the connection, `Error` (exit 2) when the server
/// could not start (outside a repository it does not start unless `no_snapshot` says applies
/// need not be undoable) or the session broke.
pub fn serve(dir: Option<PathBuf>, no_snapshot: bool) -> RunStatus {
    let here = dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let in_repo = matches!(crate::repo::Repo::discover(&here), Ok(Some(_)));
    if !in_repo && !no_snapshot {
        eprintln!(
            "git llm-apply mcp: {} is not inside a git repository, where applies are recorded so that undo can take them back; start the server in a repository, or with --no-snapshot to apply without undo",
            here.display()
        );
        return RunStatus::Error;
    }
    let recorded = in_repo && !no_snapshot;
    if !recorded {
        eprintln!("git llm-apply mcp: {NOT_RECORDED}");
    }
    // One thread runs the protocol, another every call, one at a time ([`calls`]). Two
    // runtime workers, each running the calls it picked up (`block_in_place`, which moves the
    // worker to a new thread), sent calls to threads whose kept config (`run/kept.rs`, per
    // thread) was cold: 40 warm calls opened the repository 7 times that way, once this way;
    // a warm one-line `apply_patch` round trip took 1.29 ms that way and 1.22 ms this way on
    // a quiet disk (interleaved runs, scripts/bench.sh row I's client).
    let started = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .and_then(|runtime| Ok((runtime, calls::Calls::start()?)));
    let (runtime, calls) = match started {
        Ok(r) => r,
        Err(e) => {
            eprintln!("git llm-apply mcp: cannot start: {e}");
            return RunStatus::Error;
        }
    };
    let server = Server {
        calls: calls.clone(),
        dir,
        in_repo,
        recorded,
    };
    let code = runtime.block_on(async move {
        let (reads, writes, writer) = transport::start();
        // The library's own line limit is above ours: it sees only lines we passed.
        let io =
            rmcp::transport::async_rw::AsyncRwTransport::<RoleServer, _, _>::new(reads, writes)
                .with_max_line_length(transport::MAX_LINE + 2);
        let code = match server.serve(io).await {
            Ok(running) => match running.waiting().await {
                Ok(_) => RunStatus::Applied,
                Err(e) => {
                    eprintln!("git llm-apply mcp: {e}");
                    RunStatus::Error
                }
            },
            Err(e) => {
                eprintln!("git llm-apply mcp: the session did not start: {e}");
                RunStatus::Error
            }
        };
        // The last answers are written before the process ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        code
    });
    // A call still running (the client left without waiting for it) ends before the process.
    calls.close();
    code
}

impl Server {
    /// The tools as this server offers them: outside a repository there is nothing to undo
    /// or list, and where nothing is recorded the descriptions do not promise `undo`.
    fn definitions(&self) -> Vec<Tool> {
        tools::all()
            .into_iter()
            .filter(|t| self.in_repo || !matches!(t.name, tools::UNDO | tools::LOG))
            .map(|t| {
                let description = if self.recorded {
                    t.description.to_string()
                } else {
                    tools::unrecorded(t.description)
                };
                let mut tool = Tool::new(t.name, description, t.input_schema);
                tool.output_schema = Some(std::sync::Arc::new(t.output_schema));
                tool.annotations = Some(t.annotations);
                tool
            })
            .collect()
    }

    /// A call's result as the client reads it: where nothing is recorded, that said first.
    /// (Its advice is worded as tool calls where the report is rendered: a diff or a file the
    /// result quotes is shown as it is.)
    fn finish(&self, mut result: CallToolResult) -> CallToolResult {
        if self.recorded {
            return result;
        }
        for block in &mut result.content {
            if let Some(t) = block.as_text() {
                *block = ContentBlock::text(format!("{NOT_RECORDED}\n{}", t.text));
            }
        }
        result
    }

    /// After a run that left the snapshots beyond `llm-apply.keep` to the server
    /// ([`crate::write::recorded::Prune::Later`]): drop them once its answer is on its way and
    /// the calls pause ([`calls::Calls::later`]). What stops it goes to standard error, the
    /// server's log; the next apply's prune tries again.
    fn prune_after(&self, r: &Report, dir: Option<PathBuf>) {
        if !r.prune_pending {
            return;
        }
        self.calls.later(move || {
            let config = config_in(&dir);
            if let Err(e) = crate::run::housekeeping::prune(dir, config) {
                eprintln!("git-llm-apply mcp: pruning old snapshots: {e}");
            }
        });
    }

    /// Run one call to the end on a blocking thread (the pipeline runs git and waits for
    /// locks): a failing call is a tool error, never the end of the server.
    fn call(&self, name: &str, mut arguments: serde_json::Value) -> CallToolResult {
        // Test builds panic on request (tests/README), so a test sees what a panic in a call
        // becomes.
        #[cfg(debug_assertions)]
        if let Some(m) = std::env::var_os("GIT_LLM_APPLY_TEST_PANIC_IN_TOOL") {
            panic!("injected for a test: {}", m.to_string_lossy());
        }
        let dir = self.dir.clone();
        if let Some(t) = tools::find(name) {
            tools::coerce(&mut arguments, &t.input_schema);
        }
        let no_snapshot = !self.recorded;
        let config = || config_in(&dir);
        match name {
            tools::APPLY_PATCH => {
                match serde_json::from_value::<tools::ApplyPatchArgs>(arguments) {
                    Ok(a) => {
                        let view = Shape::of(a.detail, name);
                        let mut options = a.options(dir.clone());
                        options.no_snapshot = no_snapshot;
                        options.config = config();
                        let report = crate::run::apply::run(options);
                        self.prune_after(&report, dir.clone());
                        view.result(report)
                    }
                    Err(e) => bad_arguments(name, &e),
                }
            }
            tools::EDIT => match serde_json::from_value::<tools::EditArgs>(arguments.clone()) {
                Ok(a) => {
                    let view = Shape::of(a.detail, name);
                    let mut request = arguments;
                    if let Some(map) = request.as_object_mut() {
                        for k in ["check", "label", "session", "detail"] {
                            map.remove(k);
                        }
                    }
                    let outcome = crate::run::edit::run(crate::run::edit::EditOptions {
                        request,
                        check: a.check.unwrap_or(false),
                        no_snapshot,
                        label: a.label,
                        session: a.session,
                        dir: dir.clone(),
                        config: config(),
                        // The server drops old snapshots once it has answered.
                        prune: crate::write::recorded::Prune::Later,
                    });
                    match outcome {
                        crate::run::edit::EditOutcome::Applied(r) => {
                            self.prune_after(&r, dir.clone());
                            view.result(r)
                        }
                        crate::run::edit::EditOutcome::Viewed(Ok(v)) => view_result(&v),
                        crate::run::edit::EditOutcome::Viewed(Err(r)) => view.result(*r),
                    }
                }
                Err(e) => bad_arguments(name, &e),
            },
            tools::VIEW => match serde_json::from_value::<tools::ViewArgs>(arguments) {
                Ok(a) => {
                    let config = config();
                    match crate::run::view::run(crate::run::view::ViewOptions {
                        request: a.request(),
                        dir,
                        config,
                    }) {
                        Ok(v) => view_result(&v),
                        Err(r) => report_result(*r),
                    }
                }
                Err(e) => bad_arguments(name, &e),
            },
            tools::UNDO => match serde_json::from_value::<tools::UndoArgs>(arguments) {
                Ok(a) => {
                    // An undo writes as git config says (llm-apply.fsync), and not at all when
                    // the config is invalid, as on the command line.
                    let pending = config().unwrap_or_else(|| {
                        let here = dir.clone().unwrap_or_else(|| PathBuf::from("."));
                        crate::git::config::Pending::start(&here)
                    });
                    if let Err(e) = crate::run::checked_config(&pending) {
                        return report_result(Report::failed(&e));
                    }
                    let shape = Shape::of(a.detail, name);
                    let mut options = a.options(dir);
                    options.config = Some(pending);
                    shape.result(crate::run::undo::run(options))
                }
                Err(e) => bad_arguments(name, &e),
            },
            tools::LOG => match serde_json::from_value::<tools::LogArgs>(arguments) {
                Ok(a) => match crate::run::log::run(a.options(dir.clone(), config())) {
                    Ok(mut l) => {
                        // Bounded like every result: the newest entries, and how many more.
                        let limit = a
                            .limit
                            .map_or(LOG_SHOWN, |n| usize::try_from(n).unwrap_or(usize::MAX));
                        let more = l.snapshots.len().saturating_sub(limit);
                        l.snapshots.truncate(limit);
                        let mut result = log_result(&l);
                        if more > 0 && a.limit.is_none() {
                            result.content.push(ContentBlock::text(format!(
                                "({more} older entries not shown; call log with a larger limit to see them)"
                            )));
                        }
                        result
                    }
                    Err(r) => report_result(*r),
                },
                Err(e) => bad_arguments(name, &e),
            },
            _ => CallToolResult::error(vec![ContentBlock::text(format!(
                "no tool named {name:?}: the tools are apply_patch, edit, view, undo and log"
            ))]),
        }
    }
}

fn bad_arguments(tool: &str, e: &serde_json::Error) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "{tool}: the arguments do not fit its input schema: {e}"
    ))])
}

/// The bytes a brief result's text and structured content come to at most, so that the whole
/// JSON-RPC message (escapes and envelope included) stays under 8 KB.
const BRIEF_BUDGET: usize = 6000;

/// How a tool's report is shown: brief (the default) or in full (`detail`).
struct Shape {
    detail: bool,
    tool: &'static str,
}

impl Shape {
    fn of(detail: Option<bool>, tool: &str) -> Shape {
        let tool = match tool {
            tools::EDIT => tools::EDIT,
            tools::UNDO => tools::UNDO,
            _ => tools::APPLY_PATCH,
        };
        Shape {
            detail: detail.unwrap_or(false),
            tool,
        }
    }

    fn result(&self, r: Report) -> CallToolResult {
        if self.detail {
            return report_result(r);
        }
        let full = if r.written {
            format!(
                "the full report comes with detail: true on the next call ({} was written; log lists it)",
                if r.undo { "the undo" } else { "this change" }
            )
        } else {
            format!(
                "call {} again with detail: true (and check: true to write nothing) for the full report",
                self.tool
            )
        };
        let render = |b: &Report| {
            let (text, value) = rendered(b);
            let size = text.len() + serde_json::to_string(&value).map_or(usize::MAX, |s| s.len());
            (size, (text, value))
        };
        let (b, (text, value)) = report::brief::brief(&r, BRIEF_BUDGET, &full, render);
        result_of(b.status, text, value)
    }
}

/// A run's report as a tool result: the JSON report as structured content; as text, the
/// human report without colour (for a refusal, the diagnostic to act on). A run that wrote
/// nothing because of the patch or the repository is a tool error.
fn report_result(r: Report) -> CallToolResult {
    let (text, value) = rendered(&r);
    result_of(r.status, text, value)
}

/// A report as a result carries it: its text ([`summary`]) and its JSON.
fn rendered(r: &Report) -> (String, serde_json::Value) {
    let value = serde_json::to_value(r).expect("a report always serializes");
    (summary(r), value)
}

/// A tool result of a report's status, text and JSON.
fn result_of(status: RunStatus, text: String, value: serde_json::Value) -> CallToolResult {
    let failed = matches!(
        status,
        RunStatus::Refused | RunStatus::Error | RunStatus::Busy
    );
    let mut result = if failed {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(value);
    result
}

/// The text part of a result: the human report without colour, with a first line a model
/// can branch on.
fn summary(r: &Report) -> String {
    let head = match r.status {
        RunStatus::Applied if r.undo => "undone".to_string(),
        RunStatus::Applied => format!(
            "applied: {} file(s), +{} -{}{}",
            r.summary.files,
            r.summary.added,
            r.summary.removed,
            r.snapshot
                .as_deref()
                .map(|s| format!(
                    ", snapshot {}",
                    s.trim_start_matches(crate::snapshot::REF_PREFIX)
                ))
                .unwrap_or_default()
        ),
        RunStatus::AlreadyApplied => "already applied: nothing to write".to_string(),
        RunStatus::Checked => "check passed: it would apply; nothing written".to_string(),
        RunStatus::Partial => "partly applied: some files were refused".to_string(),
        RunStatus::Refused => "refused: nothing was written".to_string(),
        RunStatus::Busy => {
            "busy: another run holds this work tree's lock; retry in a moment".to_string()
        }
        RunStatus::Error | RunStatus::Planned => "error: nothing was written".to_string(),
    };
    format!(
        "{head}\n{}",
        report::human::render_plain(r, report::advice::Advice::ToolCalls)
    )
}

fn view_result(v: &crate::report::view::ViewReport) -> CallToolResult {
    let value = serde_json::to_value(v).expect("a view always serializes");
    let mut head = v.path.clone();
    if v.kind == "file" {
        head.push_str(&format!(
            ": lines {}-{} of {}, view_token {}",
            v.first_line,
            v.last_line,
            v.total_lines,
            v.view_token.as_deref().unwrap_or_default()
        ));
    }
    let mut result =
        CallToolResult::success(vec![ContentBlock::text(format!("{head}\n{}", v.text()))]);
    result.structured_content = Some(value);
    result
}

/// Entries `log` lists when no `limit` is given.
const LOG_SHOWN: usize = 50;

fn log_result(l: &LogReport) -> CallToolResult {
    let value = serde_json::to_value(l).expect("a listing always serializes");
    let shown = report::human::render_log(
        l,
        report::human::Verbosity::Normal,
        report::advice::Advice::ToolCalls,
    );
    let mut result = CallToolResult::success(vec![ContentBlock::text(shown.stdout)]);
    result.structured_content = Some(value);
    result
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let instructions = if self.recorded {
            "Apply patches (unified diffs, Codex patches, SEARCH/REPLACE blocks) to this git \
             work tree with apply_patch, or edit files by replacing text with edit (view \
             shows a file with line numbers); each refuses rather than guesses, and says \
             why. Every apply and edit can be taken back with undo; log lists them."
                .to_string()
        } else {
            format!(
                "Apply patches (unified diffs, Codex patches, SEARCH/REPLACE blocks) to the \
                 files here with apply_patch, or edit files by replacing text with edit (view \
                 shows a file with line numbers); each refuses rather than guesses, and says \
                 why. {NOT_RECORDED}"
            )
        };
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "git-llm-apply",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let server = self.clone();
        let ran = self
            .calls
            .run(move || server.finish(server.call(&name, arguments)))
            .await;
        let Some(ran) = ran else {
            return Err(ErrorData::internal_error(
                "the server is shutting down; the call was not run",
                None,
            ));
        };
        let result = ran.unwrap_or_else(|e| {
            let what = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            CallToolResult::error(vec![ContentBlock::text(format!(
                "the call failed inside git-llm-apply: {what}; the server goes on"
            ))])
        });
        Ok(result.into())
    }
}
