//! The closest existing path for one that is missing.

/// Paths compared when looking for the closest existing one.
pub const MAX_KNOWN_PATHS: usize = 100_000;

/// The existing path most like `missing`: the same file name in another directory, or a
/// name a few typos away. `None` when nothing is close.
pub fn closest_path(missing: &str, known: &[String]) -> Option<String> {
    let (m_dir, m_name) = split_path(missing);
    let m_lower = m_name.to_lowercase();
    let budget = (m_name.chars().count() / 4).max(1);
    let mut best: Option<((usize, usize), &String)> = None;
    for p in known.iter().take(MAX_KNOWN_PATHS) {
        if p == missing {
            continue;
        }
        let (dir, name) = split_path(p);
        let name_cost = if name == m_name {
            0
        } else if name.to_lowercase() == m_lower {
            1
        } else {
            if name.len().abs_diff(m_name.len()) > budget {
                continue;
            }
            match bounded_distance(name, m_name, budget) {
                Some(d) => d + 1,
                None => continue,
            }
        };
        let score = (name_cost, bounded_distance(dir, m_dir, 64).unwrap_or(65));
        if best.is_none_or(|(b, bp)| score < b || (score == b && p < bp)) {
            best = Some((score, p));
        }
    }
    best.map(|(_, p)| p.clone())
}

fn split_path(p: &str) -> (&str, &str) {
    match p.rfind('/') {
        Some(i) => (&p[..i], &p[i + 1..]),
        None => ("", p),
    }
}

/// Levenshtein distance in characters, or `None` when it exceeds `max`.
fn bounded_distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
            row_min = row_min.min(cur[j]);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}
