//! The gate between plan and write: policy and hooks. Only this module makes the `Approved`
//! token that `write` requires, so nothing can be written before the gate has passed.

use crate::plan::{Change, Plan};

/// Permission to write these changes. Its fields are private: only `approve` makes one.
#[derive(Debug)]
pub struct Approved {
    changes: Vec<Change>,
}

impl Approved {
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }
}

/// The gate's answer.
#[derive(Debug)]
pub enum Verdict {
    Approved(Approved),
    Vetoed { reason: String },
}

/// Check the plan's writes against policy. Called only for plans the caller decided to write.
pub fn approve(plan: &Plan) -> Verdict {
    Verdict::Approved(Approved {
        changes: plan.changes.clone(),
    })
}

/// Permission to put recorded states back: an undo, or the recovery of an interrupted apply.
/// These writes restore what a snapshot recorded (or a clean merge towards it), so the
/// patch policy that `approve` will apply to new content does not gate them; they still need
/// the token, so the writer has one entrance.
pub fn approve_restore(changes: Vec<Change>) -> Verdict {
    Verdict::Approved(Approved { changes })
}
