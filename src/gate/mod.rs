//! The gate between plan and write: policy and hooks. Only this module makes the `Approved`
//! token that `write` requires, so nothing can be written before the gate has passed.

pub mod hooks;
pub mod patch_text;

use crate::patch::kinds::ErrorKind;
use crate::plan::{Change, Plan};
use crate::proof::Proof;
use crate::sys::durable::Durability;
use hooks::{HookRun, HookStatus};

/// Permission to write these changes, and the index entries of these paths, and how the
/// writes are to reach the disk. Its fields are private: only `approve` and
/// `approve_restore` make one, and every writer of the work tree or the index takes one.
#[derive(Debug)]
pub struct Approved {
    changes: Vec<Change>,
    /// Paths whose index entries may be set besides those of `changes` (an undo puts back
    /// what an apply staged, also where the file itself is already as it was).
    index: Vec<String>,
    /// The run's `llm-apply.fsync`, carried to the writer with what it writes.
    durability: Durability,
}

impl Approved {
    /// The writes the gate let through, each exactly as planned.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Whether the index entry of `path` may be written.
    pub fn covers_index(&self, path: &str) -> bool {
        self.changes.iter().any(|c| c.path == path) || self.index.iter().any(|p| p == path)
    }

    /// Whether each file written is flushed to disk before it is renamed into place.
    pub fn durability(&self) -> Durability {
        self.durability
    }
}

/// Why the gate said no.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VetoKind {
    /// A `pre-llm-apply` hook ran and exited non-zero: its verdict.
    Hook,
    /// A `pre-llm-apply` hook could not give a verdict (timeout, crash, not executable…):
    /// failing closed, since it may be the policy guarding this tree.
    HookBroken,
    /// The proof handed in was not made for this plan.
    Unproven,
}

impl VetoKind {
    /// The report's error kind.
    pub fn kind(self) -> ErrorKind {
        match self {
            VetoKind::Hook => ErrorKind::Veto,
            VetoKind::HookBroken => ErrorKind::Hook,
            VetoKind::Unproven => ErrorKind::InternalCheck,
        }
    }
}

/// The gate's answer.
#[derive(Debug)]
pub enum Verdict {
    /// The writes may go ahead, with the token that allows them.
    Approved(Approved),
    /// Nothing may be written: `kind` says who said no, `reason` why, in one sentence.
    #[allow(missing_docs)] // its fields are named in the variant's doc
    Vetoed { kind: VetoKind, reason: String },
}

/// Check the plan's writes against its proof, policy and the `pre-llm-apply` runs made for
/// this very plan (`pre`, empty when there is no hook). Called for plans the caller would
/// write, and for `--check`, which asks the same question without writing. The token says
/// the writes are made with `durability`.
pub fn approve(plan: &Plan, proof: &Proof, pre: &[HookRun], durability: Durability) -> Verdict {
    if !proof.covers(plan) {
        return Verdict::Vetoed {
            kind: VetoKind::Unproven,
            reason: "the plan's proof does not cover its changes; nothing was written".into(),
        };
    }
    if let Some(run) = pre.iter().find(|r| !r.status.passed()) {
        let (kind, reason) = match run.status {
            HookStatus::Failed { code } => {
                let said = first_line(&run.stderr.text)
                    .or_else(|| first_line(&run.stdout.text))
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default();
                (
                    VetoKind::Hook,
                    format!(
                        "{} hook refused the patch (exit {code}); nothing was written{said}",
                        run.kind.file_name()
                    ),
                )
            }
            _ => (
                VetoKind::HookBroken,
                format!("{}; nothing was written", run.describe()),
            ),
        };
        return Verdict::Vetoed { kind, reason };
    }
    Verdict::Approved(Approved {
        changes: plan.changes.clone(),
        index: Vec::new(),
        durability,
    })
}

/// Permission to put recorded states back: an undo, or the recovery of an interrupted apply.
/// These writes restore what a snapshot recorded (or a clean merge towards it), so the
/// patch policy that `approve` will apply to new content does not gate them; they still need
/// the token, so the writer has one entrance.
/// `index` names the paths whose staged entries are put back besides the changed files';
/// the writes are made with `durability`.
pub fn approve_restore(
    changes: Vec<Change>,
    index: Vec<String>,
    durability: Durability,
) -> Verdict {
    Verdict::Approved(Approved {
        changes,
        index,
        durability,
    })
}

fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}
