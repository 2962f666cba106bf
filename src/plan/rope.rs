//! A sequence cut and joined anywhere in logarithmic time: a treap keyed by position, whose
//! nodes hold runs of items. A text patched hunk after hunk, the hunks in any order, costs
//! each hunk its size and the logarithm of the text's, where a vector would move every item
//! between one hunk and the next.

/// Items a node holds at most when built from a slice.
const RUN: usize = 512;

struct Node<T> {
    items: Vec<T>,
    /// Items in this subtree.
    len: usize,
    priority: u64,
    left: Option<Box<Node<T>>>,
    right: Option<Box<Node<T>>>,
}

type Tree<T> = Option<Box<Node<T>>>;

fn len<T>(t: &Tree<T>) -> usize {
    t.as_ref().map_or(0, |n| n.len)
}

impl<T> Node<T> {
    fn fix(&mut self) {
        self.len = self.items.len() + len(&self.left) + len(&self.right);
    }
}

/// A sequence of items.
pub struct Rope<T> {
    root: Tree<T>,
    /// The state of the priorities' generator (xorshift: a fixed seed keeps runs repeatable).
    seed: u64,
}

impl<T: Clone> Rope<T> {
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

    pub fn len(&self) -> usize {
        len(&self.root)
    }

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
        Some(Box::new(Node {
            len: items.len(),
            items,
            priority: self.seed,
            left: None,
            right: None,
        }))
    }

    /// Items `lo..hi` (clipped to the length), copied out.
    pub fn get(&self, lo: usize, hi: usize) -> Vec<T> {
        let hi = hi.min(self.len());
        let mut out = Vec::with_capacity(hi.saturating_sub(lo));
        if lo < hi {
            collect(&self.root, lo, hi, &mut out);
        }
        out
    }

    /// Items `lo..hi` (`lo <= hi <= len`) replaced by `with`.
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
        drain(self.root, &mut out);
        out
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

/// Items `lo..hi` of `t` (in its own positions) appended to `out`.
fn collect<T: Clone>(t: &Tree<T>, lo: usize, hi: usize, out: &mut Vec<T>) {
    let Some(n) = t else { return };
    let left = len(&n.left);
    let own = n.items.len();
    if lo < left {
        collect(&n.left, lo, hi.min(left), out);
    }
    let (a, b) = (lo.max(left), hi.min(left + own));
    if a < b {
        out.extend_from_slice(&n.items[a - left..b - left]);
    }
    if hi > left + own {
        collect(
            &n.right,
            lo.saturating_sub(left + own),
            hi - left - own,
            out,
        );
    }
}

fn drain<T>(t: Tree<T>, out: &mut Vec<T>) {
    if let Some(n) = t {
        let Node {
            items, left, right, ..
        } = *n;
        drain(left, out);
        out.extend(items);
        drain(right, out);
    }
}

/// `t` cut into its first `k` items and the rest.
fn split<T>(t: Tree<T>, k: usize) -> (Tree<T>, Tree<T>) {
    let Some(mut n) = t else {
        return (None, None);
    };
    let left = len(&n.left);
    let own = n.items.len();
    if k <= left {
        let (a, b) = split(n.left.take(), k);
        n.left = b;
        n.fix();
        (a, Some(n))
    } else if k >= left + own {
        let (a, b) = split(n.right.take(), k - left - own);
        n.right = a;
        n.fix();
        (Some(n), b)
    } else {
        // The cut falls inside this node's run: its tail becomes a node of its own, of the
        // same priority, over the right subtree.
        let tail = n.items.split_off(k - left);
        let mut right = Box::new(Node {
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
fn join<T>(a: Tree<T>, b: Tree<T>) -> Tree<T> {
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
}
