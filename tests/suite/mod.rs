//! Test modules, one per capability.

mod apply_core;
mod apply_files;
mod bytes;
mod cli;
mod diagnostics;
mod formats_cli;
mod history;
mod hooks;
mod json_report;
mod manual;
mod parse_unified;
mod props;
mod review_cases;
mod wrong_edits;
mod report_human;
mod three_way_cli;
mod truncation;
mod untrusted_numbers;
mod three_way_engine;
mod git_transcripts;
mod merge_file;
mod snapshot_store;
mod snapshot_undo;
