//! The lines an apply adds and removes at each path it writes, taken from its plan, for the
//! snapshot to record: undo then reports them reversed instead of diffing every file.

use std::collections::{BTreeMap, HashMap};

use crate::plan::{FilePlan, FileStatus, Plan};
use crate::text::textdiff::LineCounts;

/// Per path the plan writes, the lines added and removed going from its state before the
/// apply to its state after, as the apply's report counts them:
///
/// - a path created or deleted: all of its lines, added or removed (also the old path of a
///   rename, and the new one unless it existed);
/// - a path changed in place: the sum of the counts of the file patches that changed it;
/// - a path that was replaced (a rename or a creation onto it, a deletion of it and a new
///   file there): all its old lines removed and all its new lines added;
/// - binary content (not UTF-8) on either side: no lines, as reports count it.
///
/// A path is left out when the plan cannot tell (its file patches' counts do not add up to
/// the difference in its length, as after a conflicted merge): undo counts it by diff.
pub fn path_lines(plan: &Plan) -> BTreeMap<String, LineCounts> {
    let mut writers: HashMap<&str, Vec<&FilePlan>> = HashMap::new();
    for f in &plan.files {
        for (path, _) in &f.evidence.writes {
            let list = writers.entry(path.as_str()).or_default();
            // A file patch may write one path twice (a rename onto itself); count it once.
            if !list.iter().any(|w| std::ptr::eq(*w, f)) {
                list.push(f);
            }
        }
    }
    let mut out = BTreeMap::new();
    for c in &plan.changes {
        let (before, after) = (c.before.as_ref(), c.after.as_ref());
        let lines =
            |f: Option<&crate::repo::FileState>| f.map_or(Some(0), |f| f.bytes.text_lines());
        let (Some(old), Some(new)) = (lines(before), lines(after)) else {
            out.insert(c.path.clone(), LineCounts::default());
            continue;
        };
        let counts = if before.is_none() || after.is_none() {
            Some(LineCounts::new(new, old))
        } else {
            let by = writers.get(c.path.as_str()).map_or(&[][..], Vec::as_slice);
            kept_path(by, &c.path, old, new)
        };
        if let Some(counts) = counts {
            out.insert(c.path.clone(), counts);
        }
    }
    out
}

/// The counts of a path that holds a file before and after (`old` and `new` lines), written
/// by `writers`; `None` when the plan cannot tell.
fn kept_path(writers: &[&FilePlan], path: &str, old: usize, new: usize) -> Option<LineCounts> {
    if writers.is_empty() {
        return None;
    }
    let here = Some(path);
    if !writers
        .iter()
        .all(|f| f.old_path.as_deref() == here && f.new_path.as_deref() == here)
    {
        return Some(LineCounts::new(new, old));
    }
    let mut sum = LineCounts::default();
    for f in writers {
        match f.status {
            FileStatus::Applied => sum = sum + LineCounts::new(f.added, f.removed),
            // Its hunks were there already: it changed nothing it counts.
            FileStatus::AlreadyApplied => {}
            FileStatus::Conflicted | FileStatus::Refused => return None,
        }
    }
    (new + sum.removed == old + sum.added).then_some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::FileOp;
    use crate::plan::Change;
    use crate::repo::{FileState, MODE_FILE};

    fn state(text: &str) -> Option<FileState> {
        Some(FileState {
            bytes: text.as_bytes().to_vec().into(),
            mode: MODE_FILE,
        })
    }

    fn file_plan(
        old: Option<&str>,
        new: Option<&str>,
        op: FileOp,
        counts: (usize, usize),
        writes: &[(&str, Option<FileState>)],
    ) -> FilePlan {
        let mut f = FilePlan::new(
            old.map(str::to_string),
            new.map(str::to_string),
            op,
            counts.0,
            counts.1,
        );
        f.evidence.writes = writes
            .iter()
            .map(|(p, s)| (p.to_string(), s.clone()))
            .collect();
        f
    }

    fn change(path: &str, before: Option<FileState>, after: Option<FileState>) -> Change {
        Change {
            path: path.to_string(),
            before,
            after,
        }
    }

    fn plan(files: Vec<FilePlan>, changes: Vec<Change>) -> Plan {
        Plan {
            files,
            notices: Vec::new(),
            changes,
        }
    }

    #[test]
    fn an_in_place_change_counts_its_hunks_summed_over_file_patches() {
        let (before, after) = (state("a\nb\nc\n"), state("a\nB\nc\nd\ne\n"));
        let p = plan(
            vec![
                file_plan(
                    Some("f"),
                    Some("f"),
                    FileOp::Modify,
                    (1, 1),
                    &[("f", state("a\nB\nc\n"))],
                ),
                file_plan(
                    Some("f"),
                    Some("f"),
                    FileOp::Modify,
                    (2, 0),
                    &[("f", after.clone())],
                ),
            ],
            vec![change("f", before, after)],
        );
        assert_eq!(path_lines(&p)["f"], LineCounts::new(3, 1));
    }

    #[test]
    fn a_rename_deletes_every_old_line_and_creates_every_new_one() {
        let p = plan(
            vec![file_plan(
                Some("old"),
                Some("new"),
                FileOp::Rename,
                (1, 1),
                &[("old", None), ("new", state("x\nY\nz\n"))],
            )],
            vec![
                change("old", state("x\ny\nz\n"), None),
                change("new", None, state("x\nY\nz\n")),
            ],
        );
        let lines = path_lines(&p);
        assert_eq!(lines["old"], LineCounts::new(0, 3));
        assert_eq!(lines["new"], LineCounts::new(3, 0));
    }

    #[test]
    fn a_path_renamed_away_and_created_again_is_replaced() {
        let p = plan(
            vec![
                file_plan(
                    Some("a"),
                    Some("b"),
                    FileOp::Rename,
                    (0, 0),
                    &[("a", None), ("b", state("1\n2\n"))],
                ),
                file_plan(
                    None,
                    Some("a"),
                    FileOp::Create,
                    (1, 0),
                    &[("a", state("new\n"))],
                ),
            ],
            vec![
                change("a", state("1\n2\n"), state("new\n")),
                change("b", None, state("1\n2\n")),
            ],
        );
        let lines = path_lines(&p);
        assert_eq!(lines["a"], LineCounts::new(1, 2), "deletion plus creation");
        assert_eq!(lines["b"], LineCounts::new(2, 0));
    }

    #[test]
    fn counts_that_do_not_add_up_are_left_to_the_undo() {
        let p = plan(
            vec![file_plan(
                Some("f"),
                Some("f"),
                FileOp::Modify,
                (5, 0),
                &[("f", state("a\nb\n"))],
            )],
            vec![change("f", state("a\n"), state("a\nb\n"))],
        );
        assert!(path_lines(&p).is_empty());
    }

    #[test]
    fn binary_content_counts_no_lines() {
        let binary = Some(FileState {
            bytes: vec![0xff, b'\n'].into(),
            mode: MODE_FILE,
        });
        let p = plan(
            vec![file_plan(
                None,
                Some("b"),
                FileOp::Create,
                (0, 0),
                &[("b", binary.clone())],
            )],
            vec![change("b", None, binary)],
        );
        assert_eq!(path_lines(&p)["b"], LineCounts::default());
    }
}
