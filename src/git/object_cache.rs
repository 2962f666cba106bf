//! The few trees and commits one run reads more than once, kept decoded: HEAD's commit (to
//! peel it, then to read its tree) and the trees on a touched path (the snapshot edits HEAD's
//! tree twice, for the states before and after).

use gix::hash::ObjectId;
use gix::object::Kind;

/// The largest object kept: trees and commits are small; a big tree is read once anyway.
const LARGEST: usize = 64 << 10;
/// How many objects are kept, the oldest dropped first: a run touching a few paths reads a
/// few dozen trees at most.
const KEPT: usize = 64;

/// gix's object cache for a run: trees and commits only, each up to [`LARGEST`] bytes.
/// Nothing else is copied, so a blob read (of any size) costs no copy and holds no memory,
/// as it would in gix's own cache, which copies every object before weighing it. Clones
/// share what is kept: a server's calls that use one repository one after the other
/// (`run/kept.rs`) read HEAD's commit and trees once between them. An object's bytes are
/// its id's, so what is kept is never out of date.
#[derive(Default, Clone)]
pub struct SmallObjects {
    kept: std::sync::Arc<std::sync::Mutex<Kept>>,
}

type Kept = std::collections::VecDeque<(ObjectId, Kind, Vec<u8>)>;

impl SmallObjects {
    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl gix::odb::pack::cache::Object for SmallObjects {
    fn put(&mut self, id: ObjectId, kind: Kind, data: &[u8]) {
        if !matches!(kind, Kind::Tree | Kind::Commit) || data.len() > LARGEST {
            return;
        }
        let mut kept = self.kept();
        if kept.iter().any(|(k, _, _)| *k == id) {
            return;
        }
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((id, kind, data.to_vec()));
    }

    fn get(&mut self, id: &ObjectId, out: &mut Vec<u8>) -> Option<Kind> {
        let kept = self.kept();
        let (_, kind, data) = kept.iter().find(|(k, _, _)| k == id)?;
        out.clear();
        out.extend_from_slice(data);
        Some(*kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::odb::pack::cache::Object as _;

    fn id(n: u8) -> ObjectId {
        ObjectId::from_bytes_or_panic(&[n; 20])
    }

    #[test]
    fn trees_and_commits_are_kept_and_blobs_and_big_objects_are_not() {
        let mut c = SmallObjects::default();
        c.put(id(1), Kind::Tree, b"tree bytes");
        c.put(id(2), Kind::Commit, b"commit bytes");
        c.put(id(3), Kind::Blob, b"blob bytes");
        c.put(id(4), Kind::Tree, &vec![0u8; LARGEST + 1]);
        let mut out = b"old".to_vec();
        assert_eq!(c.get(&id(1), &mut out), Some(Kind::Tree));
        assert_eq!(out, b"tree bytes");
        assert_eq!(c.get(&id(2), &mut out), Some(Kind::Commit));
        assert_eq!(out, b"commit bytes");
        assert_eq!(c.get(&id(3), &mut out), None);
        assert_eq!(c.get(&id(4), &mut out), None);
        assert_eq!(out, b"commit bytes", "a miss leaves the buffer alone");
    }

    /// A clone (another run's handle on the same repository) finds what the first kept.
    #[test]
    fn clones_share_what_is_kept() {
        let mut first = SmallObjects::default();
        let mut second = first.clone();
        first.put(id(1), Kind::Tree, b"tree bytes");
        let mut out = Vec::new();
        assert_eq!(second.get(&id(1), &mut out), Some(Kind::Tree));
        assert_eq!(out, b"tree bytes");
        let mut other = SmallObjects::default();
        assert_eq!(other.get(&id(1), &mut out), None, "a new one starts empty");
    }

    #[test]
    fn the_oldest_goes_first_when_full() {
        let mut c = SmallObjects::default();
        for n in 0..=KEPT as u8 {
            c.put(id(n), Kind::Tree, &[n]);
        }
        let mut out = Vec::new();
        assert_eq!(c.get(&id(0), &mut out), None);
        assert_eq!(c.get(&id(1), &mut out), Some(Kind::Tree));
        assert_eq!(out, [1]);
        assert_eq!(c.get(&id(KEPT as u8), &mut out), Some(Kind::Tree));
        assert_eq!(out, [KEPT as u8]);
    }
}
