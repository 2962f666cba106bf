//! Whole-buffer scans and big buffers: the newlines of a file, found 64 bytes at a time, and
//! the memory advice that lets a big buffer be faulted in by the 2 MiB page instead of the
//! 4 KiB one. Both are measured on the scale benchmark (`scripts/bench.sh`): a file is split
//! into lines, read and copied on every apply, and for a big file these are most of the cost.

use std::io::{self, Read};

/// How many `\n` bytes `bytes` holds. Pieces of a spliced file are often one line each: the
/// first newline found at the end says so, at less than a count's cost.
pub fn count_newlines(bytes: &[u8]) -> usize {
    match memchr::memchr(b'\n', bytes) {
        Some(at) if at + 1 == bytes.len() => 1,
        Some(_) => memchr::memchr_iter(b'\n', bytes).count(),
        None => 0,
    }
}

/// The offset of every `\n` in `bytes`, ascending.
pub fn newlines(bytes: &[u8]) -> Newlines<'_> {
    Newlines {
        bytes,
        next_block: 0,
        base: 0,
        mask: 0,
    }
}

/// See [`newlines`]: one 64-bit mask of newline positions per 64-byte block, read off bit by
/// bit (a search call per line costs more than the line when lines are short).
pub struct Newlines<'a> {
    bytes: &'a [u8],
    /// Where the block after the current one starts.
    next_block: usize,
    /// Where the current block starts.
    base: usize,
    /// The current block's newlines not yet given, as bits.
    mask: u64,
}

const BLOCK: usize = 64;

impl Iterator for Newlines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            let start = self.next_block;
            if start >= self.bytes.len() {
                return None;
            }
            let end = (start + BLOCK).min(self.bytes.len());
            self.mask = match <&[u8; BLOCK]>::try_from(&self.bytes[start..end]) {
                Ok(block) => block_mask(block),
                Err(_) => tail_mask(&self.bytes[start..end]),
            };
            self.base = start;
            self.next_block = end;
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + bit)
    }
}

/// Bit `i` set where `block[i]` is a newline.
#[cfg(target_arch = "x86_64")]
#[inline]
fn block_mask(block: &[u8; BLOCK]) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let at = block.as_ptr().cast::<__m128i>();
    // SAFETY: SSE2 is part of every x86_64 target; each unaligned load reads 16 of the
    // block's 64 bytes (offsets 0, 16, 32, 48).
    unsafe {
        let nl = _mm_set1_epi8(b'\n' as i8);
        let part = |i: usize| {
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(at.add(i)), nl)) as u16)
        };
        part(0) | part(1) << 16 | part(2) << 32 | part(3) << 48
    }
}

/// Bit `i` set where `block[i]` is a newline: eight bytes at a time, each byte's match
/// computed exactly (no borrow runs from one byte into the next).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn block_mask(block: &[u8; BLOCK]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut mask = 0u64;
    for (j, word) in block.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(word.try_into().expect("chunks of 8")) ^ 0x0a0a_0a0a_0a0a_0a0a;
        // The high bit of each byte that is zero in `x`.
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        // Gather the eight high bits into the low byte, in byte order.
        let bits = ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        mask |= bits << (8 * j);
    }
    mask
}

fn tail_mask(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// Below this many bytes a buffer is left to the allocator as it comes.
const HUGE: usize = 4 << 20;

/// Ask the kernel to back `v`'s spare capacity with 2 MiB pages where it can (Linux's
/// transparent huge pages in `madvise` mode): a 10 MiB buffer is then faulted in about 5
/// times, not 2,560. Only a hint: it changes no byte, and where it is refused or unknown the
/// buffer is what it was.
// Without the hint (the portable build) the early return is the whole body.
#[cfg_attr(
    any(not(target_os = "linux"), feature = "portable"),
    allow(clippy::needless_return)
)]
pub fn advise_huge<T>(v: &mut Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < HUGE {
        return;
    }
    #[cfg(all(target_os = "linux", not(feature = "portable")))]
    {
        const PAGE: usize = 2 << 20;
        let from = v.as_mut_ptr() as usize;
        let start = from.div_ceil(PAGE) * PAGE;
        let end = (from + bytes) / PAGE * PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside the allocation `v` owns; MADV_HUGEPAGE only
            // changes how the kernel backs those pages, never their contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Read all of `file`, `len` bytes as its metadata says (more or fewer if it changes under
/// the read), into a buffer advised as [`advise_huge`] says.
///
/// A big file is read in two halves at once, one on another thread: most of a big read's
/// time is the kernel faulting in and filling the buffer's fresh pages, which two cores do in
/// half the time. Where the file turns out shorter or longer than `len`, it is read again
/// from the start, in one piece.
pub fn read_all(file: &std::fs::File, len: u64) -> io::Result<Vec<u8>> {
    read_at_most(file, len, u64::MAX)
}

/// [`read_all`], stopping one byte past `most` bytes (a file that grew under the read beyond
/// what its reader takes: the caller sees it is too long without reading all of it).
pub fn read_at_most(mut file: &std::fs::File, len: u64, most: u64) -> io::Result<Vec<u8>> {
    if let Ok(n) = usize::try_from(len) {
        if n >= TWO_HALVES_AT_LEAST && len <= most {
            if let Some(v) = read_halves(file, n)? {
                return Ok(v);
            }
            use std::io::Seek as _;
            file.seek(io::SeekFrom::Start(0))?;
        }
    }
    let mut v = Vec::new();
    v.try_reserve_exact(
        usize::try_from(len.min(most))
            .unwrap_or(usize::MAX)
            .saturating_add(1),
    )
    .map_err(io::Error::other)?;
    advise_huge(&mut v);
    file.take(most.saturating_add(1)).read_to_end(&mut v)?;
    Ok(v)
}

/// From this size on, [`read_all`] reads a file's two halves at once.
const TWO_HALVES_AT_LEAST: usize = 4 << 20;

/// `file`'s `n` bytes, read as two halves at once; `None` when it does not hold exactly `n`
/// bytes now.
#[cfg(unix)]
fn read_halves(file: &std::fs::File, n: usize) -> io::Result<Option<Vec<u8>>> {
    use std::os::unix::fs::FileExt as _;
    // Zeroed memory from the system costs nothing until a read fills it; a byte more than
    // `n` shows whether the file grew.
    let mut v = vec![0u8; n + 1];
    advise_huge(&mut v);
    // Reads `buf` at `at` to its end or the file's; how many bytes it got.
    let fill = |mut buf: &mut [u8], mut at: u64| -> io::Result<usize> {
        let want = buf.len();
        while !buf.is_empty() {
            match file.read_at(buf, at) {
                Ok(0) => break,
                Ok(k) => {
                    buf = &mut buf[k..];
                    at += k as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(want - buf.len())
    };
    let half = n / 2;
    let (first, second) = v[..n].split_at_mut(half);
    // `None` for the second half: no second thread could be started (or it panicked).
    let (got_first, got_second) =
        crate::sys::threads::join(|| fill(first, 0), || fill(second, half as u64));
    let got_first = got_first?;
    // Without a second thread the caller reads the whole file in one piece.
    let Some(got_second) = got_second.transpose()? else {
        return Ok(None);
    };
    if got_first != half || got_second != n - half || fill(&mut v[n..], n as u64)? != 0 {
        return Ok(None);
    }
    v.truncate(n);
    Ok(Some(v))
}

#[cfg(not(unix))]
fn read_halves(_file: &std::fs::File, _n: usize) -> io::Result<Option<Vec<u8>>> {
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(bytes: &[u8]) -> Vec<usize> {
        (0..bytes.len()).filter(|&i| bytes[i] == b'\n').collect()
    }

    proptest! {
        /// Every newline, in order, whatever the length and wherever the blocks fall; bytes
        /// one off a newline (0x0b, 0x09, 0x8a) are not newlines.
        #[test]
        fn newlines_are_every_newline(bytes in proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'a'), Just(0x0b_u8), Just(0x09_u8), Just(0x8a_u8), any::<u8>()],
            0..700,
        )) {
            prop_assert_eq!(newlines(&bytes).collect::<Vec<_>>(), naive(&bytes));
            prop_assert_eq!(count_newlines(&bytes), naive(&bytes).len());
        }
    }

    #[test]
    fn a_big_file_is_read_whole_in_two_halves_and_one_that_changed_size_in_one_piece() {
        let data: Vec<u8> = (0..TWO_HALVES_AT_LEAST + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("big");
        std::fs::write(&path, &data).expect("write");
        let open = || std::fs::File::open(&path).expect("open");
        let n = data.len() as u64;
        assert_eq!(
            read_halves(&open(), data.len()).expect("read"),
            Some(data.clone())
        );
        assert_eq!(read_all(&open(), n).expect("read"), data);
        // Metadata that says more or fewer bytes than the file holds: the bytes it holds.
        assert_eq!(read_halves(&open(), data.len() + 1).expect("read"), None);
        assert_eq!(read_halves(&open(), data.len() - 1).expect("read"), None);
        assert_eq!(read_all(&open(), n + 7).expect("read"), data);
        assert_eq!(read_all(&open(), n - 7).expect("read"), data);
    }

    #[test]
    fn newlines_at_block_edges() {
        for len in [0, 1, 63, 64, 65, 127, 128, 129] {
            let all = vec![b'\n'; len];
            assert_eq!(
                newlines(&all).collect::<Vec<_>>(),
                naive(&all),
                "{len} newlines"
            );
            let mut ends = vec![b'x'; len];
            if len > 0 {
                ends[0] = b'\n';
                ends[len - 1] = b'\n';
            }
            assert_eq!(
                newlines(&ends).collect::<Vec<_>>(),
                naive(&ends),
                "len {len}"
            );
        }
    }

    #[test]
    fn a_big_read_is_byte_for_byte() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..(5u32 << 20)).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).expect("write");
        let f = std::fs::File::open(&path).expect("open");
        assert_eq!(read_all(&f, data.len() as u64).expect("read"), data);
        // A file that grew since its length was taken is read to its end.
        let f = std::fs::File::open(&path).expect("open");
        assert_eq!(read_all(&f, 10).expect("read"), data);
        // A reader with a limit stops one byte past it, however long the file grew.
        for len in [10, data.len() as u64] {
            let f = std::fs::File::open(&path).expect("open");
            assert_eq!(read_at_most(&f, len, 1000).expect("read"), &data[..1001]);
        }
    }
}
