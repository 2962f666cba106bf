//! A sequence cut and joined anywhere in logarithmic time: a treap keyed by position, whose
//! nodes hold runs of items. A text patched hunk after hunk, the hunks in any order, costs
//! each hunk its size and the logarithm of the text's, where a vector would move every item
//! between one hunk and the next.
//!
//! Positions count weight: an item may stand for several lines (a run of kept lines), and is
//! cut where a position falls inside it.

/// An item of a rope: how many positions it takes, and how it is cut.
pub trait Piece: Clone {
    /// How many positions the item takes.
    fn weight(&self) -> usize;
    /// The item's first `at` positions and the rest (`0 < at < weight`).
    fn cut(&self, at: usize) -> (Self, Self);
}

/// Items a node holds at most when built from a slice.
const RUN: usize = 512;

struct Node<T> {
    items: Vec<T>,
    /// The weight of this node's items.
    own: usize,
    /// The weight of this subtree.
    len: usize,
    priority: u64,
    left: Option<Box<Node<T>>>,
    right: Option<Box<Node<T>>>,
}

type Tree<T> = Option<Box<Node<T>>>;

fn len<T>(t: &Tree<T>) -> usize {
    t.as_ref().map_or(0, |n| n.len)
}

impl<T: Piece> Node<T> {
    fn fix(&mut self) {
        self.own = self.items.iter().map(Piece::weight).sum();
        self.len = self.own + len(&self.left) + len(&self.right);
    }
}

/// A sequence of items.
pub struct Rope<T> {
    root: Tree<T>,
    /// The state of the priorities' generator (xorshift: a fixed seed keeps runs repeatable).
    seed: u64,
}

impl<T: Piece> Rope<T> {
    /// The items of `from`, in order.
    pub fn new(from: Vec<T>) -> Rope<T> {
        let mut rope = Rope {
            root: None,
            seed: 0x9e37_79b9_7f4a_7c15,
        };
        let mut from = from.into_iter().peekable();
        let mut runs = Vec::new();
        while from.peek().is_some() {
            runs.push(from.by_ref().take(RUN).collect::<Vec<T>>());
        }
        // Joined one after another; each join walks the right spine, which a treap keeps
        // logarithmic in expectation.
        for run in runs {
            let node = rope.node(run);
            let root = rope.root.take();
            rope.root = join(root, node);
        }
        rope
    }

    /// The total weight of the items: the number of positions.
    pub fn len(&self) -> usize {
        len(&self.root)
    }

    /// Whether the rope holds no item.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    fn node(&mut self, items: Vec<T>) -> Tree<T> {
        if items.is_empty() {
            return None;
        }
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        let mut node = Box::new(Node {
            own: 0,
            len: 0,
            items,
            priority: self.seed,
            left: None,
            right: None,
        });
        node.fix();
        Some(node)
    }

    /// Positions `lo..hi` (clipped to the length) as items, copied out; items reaching past
    /// either end are cut to it.
    pub fn get(&self, lo: usize, hi: usize) -> Vec<T> {
        let hi = hi.min(self.len());
        let mut out = Vec::with_capacity(hi.saturating_sub(lo));
        if lo < hi {
            collect(&self.root, lo, hi, &mut out);
        }
        out
    }

    /// Positions `lo..hi` (`lo <= hi <= len`) replaced by the items `with`.
    pub fn replace(&mut self, lo: usize, hi: usize, with: Vec<T>) {
        assert!(lo <= hi && hi <= self.len(), "a range of the sequence");
        let (head, rest) = split(self.root.take(), lo);
        let (_, tail) = split(rest, hi - lo);
        let mid = self.node(with);
        self.root = join(join(head, mid), tail);
    }

    /// Every item, in order.
    pub fn into_vec(self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        self.drain(|item| out.push(item));
        out
    }

    /// Every item, in order, handed over one by one as the rope is taken apart (so no
    /// second copy of the whole sequence is ever held).
    pub fn drain(self, mut f: impl FnMut(T)) {
        fn walk<T>(t: Tree<T>, f: &mut impl FnMut(T)) {
            if let Some(n) = t {
                let Node {
                    items, left, right, ..
                } = *n;
                walk(left, f);
                items.into_iter().for_each(&mut *f);
                walk(right, f);
            }
        }
        walk(self.root, &mut f);
    }

    /// The position of the item whose key is `k`, in a rope whose items' keys ascend; `None`
    /// when no item has it. One descent: the keys order the tree as positions do.
    pub fn position_by<K: Ord>(&self, key: impl Fn(&T) -> K, k: &K) -> Option<usize> {
        let mut t = &self.root;
        let mut before = 0;
        while let Some(n) = t {
            let (first, last) = (n.items.first()?, n.items.last()?);
            if *k < key(first) {
                t = &n.left;
            } else if *k > key(last) {
                before += len(&n.left) + n.own;
                t = &n.right;
            } else {
                let i = n.items.binary_search_by(|x| key(x).cmp(k)).ok()?;
                let inside: usize = n.items[..i].iter().map(Piece::weight).sum();
                return Some(before + len(&n.left) + inside);
            }
        }
        None
    }

    /// Every item, in order, by reference.
    pub fn for_each(&self, mut f: impl FnMut(&T)) {
        fn walk<T>(t: &Tree<T>, f: &mut impl FnMut(&T)) {
            if let Some(n) = t {
                walk(&n.left, f);
                n.items.iter().for_each(&mut *f);
                walk(&n.right, f);
            }
        }
        walk(&self.root, &mut f);
    }
}

/// Positions `lo..hi` of `t` (in its own positions) appended to `out`, as items.
fn collect<T: Piece>(t: &Tree<T>, lo: usize, hi: usize, out: &mut Vec<T>) {
    let Some(n) = t else { return };
    let left = len(&n.left);
    if lo < left {
        collect(&n.left, lo, hi.min(left), out);
    }
    let (a, b) = (lo.max(left), hi.min(left + n.own));
    if a < b {
        let mut at = left;
        for item in &n.items {
            let w = item.weight();
            let (s, e) = (a.max(at), b.min(at + w));
            if s < e {
                out.push(if s == at && e == at + w {
                    item.clone()
                } else {
                    let tail = if s > at {
                        item.cut(s - at).1
                    } else {
                        item.clone()
                    };
                    if e < at + w {
                        tail.cut(e - s).0
                    } else {
                        tail
                    }
                });
            }
            at += w;
            if at >= b {
                break;
            }
        }
    }
    if hi > left + n.own {
        collect(
            &n.right,
            lo.saturating_sub(left + n.own),
            hi - left - n.own,
            out,
        );
    }
}

/// `t` cut into its first `k` positions and the rest.
fn split<T: Piece>(t: Tree<T>, k: usize) -> (Tree<T>, Tree<T>) {
    let Some(mut n) = t else {
        return (None, None);
    };
    let left = len(&n.left);
    if k <= left {
        let (a, b) = split(n.left.take(), k);
        n.left = b;
        n.fix();
        (a, Some(n))
    } else if k >= left + n.own {
        let (a, b) = split(n.right.take(), k - left - n.own);
        n.right = a;
        n.fix();
        (Some(n), b)
    } else {
        // The cut falls inside this node's items: the rest becomes a node of its own, of the
        // same priority, over the right subtree.
        let mut at = left;
        let mut j = 0;
        while at + n.items[j].weight() <= k {
            at += n.items[j].weight();
            j += 1;
        }
        let mut tail = n.items.split_off(j);
        if at < k {
            let (a, b) = tail[0].cut(k - at);
            n.items.push(a);
            tail[0] = b;
        }
        let mut right = Box::new(Node {
            own: 0,
            len: 0,
            items: tail,
            priority: n.priority,
            left: None,
            right: n.right.take(),
        });
        right.fix();
        n.fix();
        (Some(n), Some(right))
    }
}

/// `a` then `b`.
fn join<T: Piece>(a: Tree<T>, b: Tree<T>) -> Tree<T> {
    match (a, b) {
        (None, b) => b,
        (a, None) => a,
        (Some(mut a), Some(mut b)) => {
            if a.priority >= b.priority {
                a.right = join(a.right.take(), Some(b));
                a.fix();
                Some(a)
            } else {
                b.left = join(Some(a), b.left.take());
                b.fix();
                Some(b)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    impl Piece for u32 {
        fn weight(&self) -> usize {
            1
        }
        fn cut(&self, _: usize) -> (u32, u32) {
            unreachable!("an item of weight 1 is never cut")
        }
    }

    /// A run of numbers `from..from + len`.
    #[derive(Clone, Debug, PartialEq)]
    struct Run(u32, usize);

    impl Piece for Run {
        fn weight(&self) -> usize {
            self.1
        }
        fn cut(&self, at: usize) -> (Run, Run) {
            (Run(self.0, at), Run(self.0 + at as u32, self.1 - at))
        }
    }

    fn spelled(runs: &[Run]) -> Vec<u32> {
        runs.iter().flat_map(|r| r.0..r.0 + r.1 as u32).collect()
    }

    proptest! {
        /// Ranges replaced anywhere, in any order, leave what a vector gets from the same
        /// replacements, and every range reads as the vector's.
        #[test]
        fn a_rope_is_a_vector(
            n in 0..3000usize,
            ops in prop::collection::vec((any::<usize>(), 0..700usize, 0..40usize), 1..40),
        ) {
            let mut model: Vec<u32> = (0..n as u32).collect();
            let mut rope = Rope::new(model.clone());
            let mut next = 1_000_000u32;
            for (at, width, put) in ops {
                let lo = at % (model.len() + 1);
                let hi = (lo + width).min(model.len());
                let with: Vec<u32> = (next..next + put as u32).collect();
                next += put as u32;
                model.splice(lo..hi, with.clone());
                rope.replace(lo, hi, with);
                prop_assert_eq!(rope.len(), model.len());
                let a = (at / 7) % (model.len() + 1);
                let b = a + width;
                prop_assert_eq!(rope.get(a, b), model[a..b.min(model.len())].to_vec());
            }
            let mut seen = Vec::new();
            rope.for_each(|x| seen.push(*x));
            prop_assert_eq!(&seen, &model);
            prop_assert_eq!(rope.into_vec(), model);
        }
    }

    proptest! {
        /// In a rope kept in ascending order while ranges are replaced, every item is found at
        /// its position by its key, and a key no item has is not found.
        #[test]
        fn items_in_order_are_found_by_key(
            n in 0..3000usize,
            ops in prop::collection::vec((any::<usize>(), 0..300usize, 0..20usize, any::<u32>()), 1..30),
        ) {
            let mut model: Vec<u32> = (0..n as u32).map(|i| i * 4096).collect();
            let mut rope = Rope::new(model.clone());
            for (at, width, put, probe) in ops {
                let lo = at % (model.len() + 1);
                let hi = (lo + width).min(model.len());
                let below = if lo == 0 { 0 } else { model[lo - 1] + 1 };
                let above = model.get(hi).copied().unwrap_or(u32::MAX);
                let room = (above - below) as usize;
                let with: Vec<u32> = (0..put.min(room))
                    .map(|j| below + (j * room / put.min(room).max(1)) as u32)
                    .collect();
                model.splice(lo..hi, with.clone());
                rope.replace(lo, hi, with);
                for (i, x) in model.iter().enumerate().step_by(7) {
                    prop_assert_eq!(rope.position_by(|v| *v, x), Some(i));
                }
                prop_assert_eq!(rope.position_by(|v| *v, &probe), model.binary_search(&probe).ok());
            }
        }
    }

    proptest! {
        /// Runs standing for many positions are cut where a range starts or ends inside
        /// them, and read as the positions they stand for.
        #[test]
        fn runs_are_cut_where_ranges_fall(
            sizes in prop::collection::vec(1..50usize, 0..60),
            ops in prop::collection::vec((any::<usize>(), 0..200usize, prop::collection::vec(1..9usize, 0..4)), 1..30),
        ) {
            let mut next = 0u32;
            let mut run = |n: usize| { let r = Run(next, n); next += n as u32 + 1000; r };
            let runs: Vec<Run> = sizes.iter().map(|&n| run(n)).collect();
            let mut model = spelled(&runs);
            let mut rope = Rope::new(runs);
            for (at, width, put) in ops {
                let lo = at % (model.len() + 1);
                let hi = (lo + width).min(model.len());
                let with: Vec<Run> = put.iter().map(|&n| run(n)).collect();
                model.splice(lo..hi, spelled(&with));
                rope.replace(lo, hi, with);
                prop_assert_eq!(rope.len(), model.len());
                let a = (at / 3) % (model.len() + 1);
                let got = rope.get(a, a + width);
                prop_assert_eq!(spelled(&got), model[a..(a + width).min(model.len())].to_vec());
            }
            prop_assert_eq!(spelled(&rope.into_vec()), model);
        }
    }
}
