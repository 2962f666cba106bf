//! The conflicting regions of a three-way result, read back from its markers, so a refusal
//! can show both sides: what the file has now and what the patch wanted there. Bounded like
//! the hunk diagnostics.

use schemars::JsonSchema;
use serde::Serialize;

use super::NumberedLine;

/// Lines kept of each side of a region.
const MAX_SIDE: usize = 8;
/// Characters kept of a line.
const MAX_TEXT: usize = 300;

/// One conflict. `start` and `end` are lines of the merged result (as in `conflicts`); the
/// lines of each side are numbered as in the file now (`ours`) and as the patch would have
/// made it (`theirs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ConflictRegion {
    /// The line of the `<<<<<<<` marker.
    pub start: usize,
    /// The line of the `>>>>>>>` marker.
    pub end: usize,
    /// How many lines the file has there now.
    pub ours_lines: usize,
    /// What the file has there now; a long side keeps its first and last lines.
    pub ours: Vec<NumberedLine>,
    /// How many lines the patch wanted there.
    pub theirs_lines: usize,
    /// What the patch wanted there; a long side keeps its first and last lines.
    pub theirs: Vec<NumberedLine>,
}

#[derive(PartialEq)]
enum Side {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// Every conflict region in a merged text (empty for text that is not UTF-8).
pub fn regions(bytes: &[u8]) -> Vec<ConflictRegion> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut side = Side::Outside;
    let mut start = 0;
    let mut ours: Vec<(usize, &str)> = Vec::new();
    let mut theirs: Vec<(usize, &str)> = Vec::new();
    // Line numbers of the file now (outside and ours) and of the patch's result (outside
    // and theirs): markers and the base section are in neither.
    let (mut now, mut wanted) = (0usize, 0usize);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let n = i + 1;
        let marker = |m: &str| line == m || line.starts_with(&format!("{m} "));
        if marker("<<<<<<<") {
            side = Side::Ours;
            start = n;
            ours.clear();
            theirs.clear();
        } else if side != Side::Outside && marker("|||||||") {
            side = Side::Base;
        } else if side != Side::Outside && line == "=======" {
            side = Side::Theirs;
        } else if side == Side::Theirs && marker(">>>>>>>") {
            out.push(ConflictRegion {
                start,
                end: n,
                ours_lines: ours.len(),
                ours: bounded(&ours),
                theirs_lines: theirs.len(),
                theirs: bounded(&theirs),
            });
            side = Side::Outside;
        } else {
            match side {
                Side::Ours => {
                    now += 1;
                    ours.push((now, line));
                }
                Side::Theirs => {
                    wanted += 1;
                    theirs.push((wanted, line));
                }
                Side::Outside => {
                    now += 1;
                    wanted += 1;
                }
                Side::Base => {}
            }
        }
    }
    out
}

fn bounded(lines: &[(usize, &str)]) -> Vec<NumberedLine> {
    let keep = |&(n, t): &(usize, &str)| NumberedLine {
        line: n,
        text: match t.char_indices().nth(MAX_TEXT) {
            Some((at, _)) => format!("{}…", &t[..at]),
            None => t.to_string(),
        },
    };
    if lines.len() <= MAX_SIDE {
        return lines.iter().map(keep).collect();
    }
    let head = MAX_SIDE - 3;
    lines[..head]
        .iter()
        .chain(&lines[lines.len() - 3..])
        .map(keep)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_of_each_region_are_read_back() {
        let merged =
            "a\n<<<<<<< ours\nmine\n=======\ntheirs 1\ntheirs 2\n>>>>>>> theirs\nb\n<<<<<<< ours\n||||||| base\nold\n=======\n>>>>>>> theirs\n";
        let r = regions(merged.as_bytes());
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].start, r[0].end), (2, 7));
        assert_eq!(r[0].ours[0].text, "mine");
        assert_eq!(r[0].theirs_lines, 2);
        assert_eq!(r[0].ours[0].line, 2, "numbered as in the file now");
        assert_eq!(r[0].theirs[1].line, 3, "numbered as in the patched file");
        assert_eq!((r[1].ours_lines, r[1].theirs_lines), (0, 0));
    }

    #[test]
    fn a_long_side_keeps_its_head_and_tail() {
        let body: String = (0..20).map(|i| format!("t{i}\n")).collect();
        let merged = format!("<<<<<<< ours\n=======\n{body}>>>>>>> theirs\n");
        let r = regions(merged.as_bytes());
        assert_eq!(r[0].theirs_lines, 20);
        assert_eq!(r[0].theirs.len(), MAX_SIDE);
        assert_eq!(r[0].theirs.last().map(|l| l.text.as_str()), Some("t19"));
    }
}
