//! The stable machine names a report gives its notices and errors, as enums: each is written
//! once here, the JSON schema lists them, and a misspelt kind does not compile. The names
//! are the report's wire vocabulary (docs/json.md); clients match on them. They live with the
//! patch model because the parsers name them first (a stage may only use earlier ones);
//! `report::kinds` is this module.

use schemars::JsonSchema;
use serde::Serialize;

/// What a notice is about: a repair the input needed, or a fact about the run.
#[allow(missing_docs)] // names in docs/json.md's notice table; variant docs would change the schema
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
pub enum NoticeKind {
    #[serde(rename = "add-line-missing-plus")]
    AddLineMissingPlus,
    #[serde(rename = "anchor-missing-space")]
    AnchorMissingSpace,
    #[serde(rename = "blank-context-line")]
    BlankContextLine,
    #[serde(rename = "blank-context-repaired")]
    BlankContextRepaired,
    #[serde(rename = "context-prefix-repaired")]
    ContextPrefixRepaired,
    #[serde(rename = "counts-recomputed")]
    CountsRecomputed,
    #[serde(rename = "crlf-input")]
    CrlfInput,
    #[serde(rename = "crlf-patch")]
    CrlfPatch,
    #[serde(rename = "elision-split")]
    ElisionSplit,
    #[serde(rename = "empty-block-ignored")]
    EmptyBlockIgnored,
    #[serde(rename = "empty-hunk-ignored")]
    EmptyHunkIgnored,
    #[serde(rename = "empty-search-appends")]
    EmptySearchAppends,
    #[serde(rename = "end-marker-missing")]
    EndMarkerMissing,
    #[serde(rename = "fence-stripped")]
    FenceStripped,
    #[serde(rename = "file-header-repaired")]
    FileHeaderRepaired,
    #[serde(rename = "heredoc-stripped")]
    HeredocStripped,
    #[serde(rename = "hunk-header-missing")]
    HunkHeaderMissing,
    #[serde(rename = "index-kept")]
    IndexKept,
    #[serde(rename = "index-restored")]
    IndexRestored,
    #[serde(rename = "junk-between-hunks")]
    JunkBetweenHunks,
    #[serde(rename = "line-numbers-ignored")]
    LineNumbersIgnored,
    #[serde(rename = "line-numbers-stripped")]
    LineNumbersStripped,
    #[serde(rename = "mailbox-read")]
    MailboxRead,
    #[serde(rename = "marker-padding")]
    MarkerPadding,
    #[serde(rename = "no-line-numbers")]
    NoLineNumbers,
    #[serde(rename = "no-newline-marker")]
    NoNewlineMarker,
    #[serde(rename = "no-snapshot")]
    NoSnapshot,
    #[serde(rename = "not-a-repository")]
    NotARepository,
    #[serde(rename = "nothing-verified")]
    NothingVerified,
    #[serde(rename = "path-from-content")]
    PathFromContent,
    #[serde(rename = "path-reused")]
    PathReused,
    #[serde(rename = "post-hook-failed")]
    PostHookFailed,
    #[serde(rename = "prefix-stripped")]
    PrefixStripped,
    #[serde(rename = "prose-ignored")]
    ProseIgnored,
    #[serde(rename = "recovered")]
    Recovered,
    #[serde(rename = "replaced-all")]
    ReplacedAll,
    #[serde(rename = "rollback-journal")]
    RollbackJournal,
    #[serde(rename = "rollback-snapshot")]
    RollbackSnapshot,
    #[serde(rename = "rollback-unjournaled")]
    RollbackUnjournaled,
    #[serde(rename = "rolled-back")]
    RolledBack,
    #[serde(rename = "session-undo-refused")]
    SessionUndoRefused,
    #[serde(rename = "session-undone")]
    SessionUndone,
    #[serde(rename = "snapshot-housekeeping")]
    SnapshotHousekeeping,
    #[serde(rename = "stray-end-of-file")]
    StrayEndOfFile,
    #[serde(rename = "trailing-blank-dropped")]
    TrailingBlankDropped,
    #[serde(rename = "undo-checked")]
    UndoChecked,
    #[serde(rename = "undo-refused")]
    UndoRefused,
    #[serde(rename = "undone")]
    Undone,
    #[serde(rename = "unified-hunk-header")]
    UnifiedHunkHeader,
    #[serde(rename = "unlocked")]
    Unlocked,
    #[serde(rename = "whole-file-reply")]
    WholeFileReply,
}

impl NoticeKind {
    /// The name as the JSON report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::AddLineMissingPlus => "add-line-missing-plus",
            NoticeKind::AnchorMissingSpace => "anchor-missing-space",
            NoticeKind::BlankContextLine => "blank-context-line",
            NoticeKind::BlankContextRepaired => "blank-context-repaired",
            NoticeKind::ContextPrefixRepaired => "context-prefix-repaired",
            NoticeKind::CountsRecomputed => "counts-recomputed",
            NoticeKind::CrlfInput => "crlf-input",
            NoticeKind::CrlfPatch => "crlf-patch",
            NoticeKind::ElisionSplit => "elision-split",
            NoticeKind::EmptyBlockIgnored => "empty-block-ignored",
            NoticeKind::EmptyHunkIgnored => "empty-hunk-ignored",
            NoticeKind::EmptySearchAppends => "empty-search-appends",
            NoticeKind::EndMarkerMissing => "end-marker-missing",
            NoticeKind::FenceStripped => "fence-stripped",
            NoticeKind::FileHeaderRepaired => "file-header-repaired",
            NoticeKind::HeredocStripped => "heredoc-stripped",
            NoticeKind::HunkHeaderMissing => "hunk-header-missing",
            NoticeKind::IndexKept => "index-kept",
            NoticeKind::IndexRestored => "index-restored",
            NoticeKind::JunkBetweenHunks => "junk-between-hunks",
            NoticeKind::LineNumbersIgnored => "line-numbers-ignored",
            NoticeKind::LineNumbersStripped => "line-numbers-stripped",
            NoticeKind::MailboxRead => "mailbox-read",
            NoticeKind::MarkerPadding => "marker-padding",
            NoticeKind::NoLineNumbers => "no-line-numbers",
            NoticeKind::NoNewlineMarker => "no-newline-marker",
            NoticeKind::NoSnapshot => "no-snapshot",
            NoticeKind::NotARepository => "not-a-repository",
            NoticeKind::NothingVerified => "nothing-verified",
            NoticeKind::PathFromContent => "path-from-content",
            NoticeKind::PathReused => "path-reused",
            NoticeKind::PostHookFailed => "post-hook-failed",
            NoticeKind::PrefixStripped => "prefix-stripped",
            NoticeKind::ProseIgnored => "prose-ignored",
            NoticeKind::Recovered => "recovered",
            NoticeKind::ReplacedAll => "replaced-all",
            NoticeKind::RollbackJournal => "rollback-journal",
            NoticeKind::RollbackSnapshot => "rollback-snapshot",
            NoticeKind::RollbackUnjournaled => "rollback-unjournaled",
            NoticeKind::RolledBack => "rolled-back",
            NoticeKind::SessionUndoRefused => "session-undo-refused",
            NoticeKind::SessionUndone => "session-undone",
            NoticeKind::SnapshotHousekeeping => "snapshot-housekeeping",
            NoticeKind::StrayEndOfFile => "stray-end-of-file",
            NoticeKind::TrailingBlankDropped => "trailing-blank-dropped",
            NoticeKind::UndoChecked => "undo-checked",
            NoticeKind::UndoRefused => "undo-refused",
            NoticeKind::Undone => "undone",
            NoticeKind::UnifiedHunkHeader => "unified-hunk-header",
            NoticeKind::Unlocked => "unlocked",
            NoticeKind::WholeFileReply => "whole-file-reply",
        }
    }

    /// Every kind, in the order the schema lists them.
    pub const ALL: &'static [NoticeKind] = &[
        NoticeKind::AddLineMissingPlus,
        NoticeKind::AnchorMissingSpace,
        NoticeKind::BlankContextLine,
        NoticeKind::BlankContextRepaired,
        NoticeKind::ContextPrefixRepaired,
        NoticeKind::CountsRecomputed,
        NoticeKind::CrlfInput,
        NoticeKind::CrlfPatch,
        NoticeKind::ElisionSplit,
        NoticeKind::EmptyBlockIgnored,
        NoticeKind::EmptyHunkIgnored,
        NoticeKind::EmptySearchAppends,
        NoticeKind::EndMarkerMissing,
        NoticeKind::FenceStripped,
        NoticeKind::FileHeaderRepaired,
        NoticeKind::HeredocStripped,
        NoticeKind::HunkHeaderMissing,
        NoticeKind::IndexKept,
        NoticeKind::IndexRestored,
        NoticeKind::JunkBetweenHunks,
        NoticeKind::LineNumbersIgnored,
        NoticeKind::LineNumbersStripped,
        NoticeKind::MailboxRead,
        NoticeKind::MarkerPadding,
        NoticeKind::NoLineNumbers,
        NoticeKind::NoNewlineMarker,
        NoticeKind::NoSnapshot,
        NoticeKind::NotARepository,
        NoticeKind::NothingVerified,
        NoticeKind::PathFromContent,
        NoticeKind::PathReused,
        NoticeKind::PostHookFailed,
        NoticeKind::PrefixStripped,
        NoticeKind::ProseIgnored,
        NoticeKind::Recovered,
        NoticeKind::ReplacedAll,
        NoticeKind::RollbackJournal,
        NoticeKind::RollbackSnapshot,
        NoticeKind::RollbackUnjournaled,
        NoticeKind::RolledBack,
        NoticeKind::SessionUndoRefused,
        NoticeKind::SessionUndone,
        NoticeKind::SnapshotHousekeeping,
        NoticeKind::StrayEndOfFile,
        NoticeKind::TrailingBlankDropped,
        NoticeKind::UndoChecked,
        NoticeKind::UndoRefused,
        NoticeKind::Undone,
        NoticeKind::UnifiedHunkHeader,
        NoticeKind::Unlocked,
        NoticeKind::WholeFileReply,
    ];
}

impl std::fmt::Display for NoticeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What stopped a run: bad input, a refusal the parser or a command made, a broken environment.
#[allow(missing_docs)] // names in docs/json.md's error table; variant docs would change the schema
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
pub enum ErrorKind {
    #[serde(rename = "already-undone")]
    AlreadyUndone,
    #[serde(rename = "ambiguous")]
    Ambiguous,
    #[serde(rename = "ambiguous-path")]
    AmbiguousPath,
    #[serde(rename = "binary")]
    Binary,
    #[serde(rename = "changed-since-view")]
    ChangedSinceView,
    #[serde(rename = "config")]
    Config,
    #[serde(rename = "encoding")]
    Encoding,
    #[serde(rename = "exists")]
    Exists,
    #[serde(rename = "git-version")]
    GitVersion,
    #[serde(rename = "hook")]
    Hook,
    #[serde(rename = "index")]
    Index,
    #[serde(rename = "input")]
    Input,
    #[serde(rename = "internal")]
    Internal,
    #[serde(rename = "internal-check")]
    InternalCheck,
    #[serde(rename = "io")]
    Io,
    #[serde(rename = "lock")]
    Lock,
    #[serde(rename = "missing")]
    Missing,
    #[serde(rename = "nothing-to-undo")]
    NothingToUndo,
    #[serde(rename = "other-worktree")]
    OtherWorktree,
    #[serde(rename = "parse")]
    Parse,
    #[serde(rename = "path")]
    Path,
    #[serde(rename = "recovery")]
    Recovery,
    #[serde(rename = "repository")]
    Repository,
    #[serde(rename = "rollback")]
    Rollback,
    #[serde(rename = "snapshot")]
    Snapshot,
    #[serde(rename = "truncated")]
    Truncated,
    #[serde(rename = "usage")]
    Usage,
    #[serde(rename = "verify")]
    Verify,
    #[serde(rename = "veto")]
    Veto,
    #[serde(rename = "write")]
    Write,
}

impl ErrorKind {
    /// The name as the JSON report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::AlreadyUndone => "already-undone",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::AmbiguousPath => "ambiguous-path",
            ErrorKind::Binary => "binary",
            ErrorKind::ChangedSinceView => "changed-since-view",
            ErrorKind::Config => "config",
            ErrorKind::Encoding => "encoding",
            ErrorKind::Exists => "exists",
            ErrorKind::GitVersion => "git-version",
            ErrorKind::Hook => "hook",
            ErrorKind::Index => "index",
            ErrorKind::Input => "input",
            ErrorKind::Internal => "internal",
            ErrorKind::InternalCheck => "internal-check",
            ErrorKind::Io => "io",
            ErrorKind::Lock => "lock",
            ErrorKind::Missing => "missing",
            ErrorKind::NothingToUndo => "nothing-to-undo",
            ErrorKind::OtherWorktree => "other-worktree",
            ErrorKind::Parse => "parse",
            ErrorKind::Path => "path",
            ErrorKind::Recovery => "recovery",
            ErrorKind::Repository => "repository",
            ErrorKind::Rollback => "rollback",
            ErrorKind::Snapshot => "snapshot",
            ErrorKind::Truncated => "truncated",
            ErrorKind::Usage => "usage",
            ErrorKind::Verify => "verify",
            ErrorKind::Veto => "veto",
            ErrorKind::Write => "write",
        }
    }

    /// Every kind, in the order the schema lists them.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::AlreadyUndone,
        ErrorKind::Ambiguous,
        ErrorKind::AmbiguousPath,
        ErrorKind::Binary,
        ErrorKind::ChangedSinceView,
        ErrorKind::Config,
        ErrorKind::Encoding,
        ErrorKind::Exists,
        ErrorKind::GitVersion,
        ErrorKind::Hook,
        ErrorKind::Index,
        ErrorKind::Input,
        ErrorKind::Internal,
        ErrorKind::InternalCheck,
        ErrorKind::Io,
        ErrorKind::Lock,
        ErrorKind::Missing,
        ErrorKind::NothingToUndo,
        ErrorKind::OtherWorktree,
        ErrorKind::Parse,
        ErrorKind::Path,
        ErrorKind::Recovery,
        ErrorKind::Repository,
        ErrorKind::Rollback,
        ErrorKind::Snapshot,
        ErrorKind::Truncated,
        ErrorKind::Usage,
        ErrorKind::Verify,
        ErrorKind::Veto,
        ErrorKind::Write,
    ];
}

/// An error that knows the kind the report files it under. The kind is the error's to say,
/// not the caller's that reports it: [`crate::report::ErrorReport::of`] turns one into the
/// report's error (its kind and its message) in one place.
pub trait Kinded: std::fmt::Display {
    /// The report's kind for this error.
    fn kind(&self) -> ErrorKind;
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_serializes_as_its_name_and_the_lists_are_whole_and_sorted() {
        for k in NoticeKind::ALL {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        for k in ErrorKind::ALL {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        let names = |ks: &[&str]| ks.windows(2).all(|w| w[0] < w[1]);
        let notices: Vec<&str> = NoticeKind::ALL.iter().map(|k| k.as_str()).collect();
        let errors: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        assert!(names(&notices), "{notices:?}");
        assert!(names(&errors), "{errors:?}");
    }
}
