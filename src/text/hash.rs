//! A fast, well-mixed hash of lines for the planner's index and the diff's interning. Lines
//! are hashed by the million there, and every match is verified afterwards, so speed matters
//! and resistance to chosen collisions does not (the text is the user's own).

use std::hash::Hasher;

const K: u64 = 0x517c_c1b7_2722_0a95;

/// The hash of `bytes`: 8 bytes at a time, then a full avalanche so that every bit of the
/// result depends on every byte.
pub fn of(bytes: &[u8]) -> u64 {
    let mut h = Fast(bytes.len() as u64);
    h.write(bytes);
    h.finish()
}

/// [`of`] as a [`Hasher`], for maps keyed by lines.
#[derive(Default)]
pub struct Fast(u64);

impl Hasher for Fast {
    fn finish(&self) -> u64 {
        // splitmix64's finaliser.
        let mut h = self.0;
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let word = u64::from_le_bytes(c.try_into().expect("chunks of 8"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(K);
    }
}

/// A key that is already such a hash, used as it is.
#[derive(Default)]
pub struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = Fast(self.0);
        h.write(bytes);
        self.0 = h.finish();
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    #[test]
    fn equal_lines_hash_alike_and_near_ones_apart() {
        assert_eq!(of(b"    let x = 1;"), of(b"    let x = 1;"));
        assert_ne!(of(b"    let x = 1;"), of(b"    let x = 2;"));
        assert_ne!(of(b""), of(b"\0"));
        assert_ne!(of(b"abcdefgh"), of(b"abcdefgh\0"));
        // Through the Hasher (as a map key) too.
        let key = |b: &[u8]| {
            let mut h = Fast::default();
            b.hash(&mut h);
            h.finish()
        };
        assert_eq!(key(b"line\n"), key(b"line\n"));
        assert_ne!(key(b"line\n"), key(b"line\r\n"));
    }
}
