//! A big blob written into the loose object database without compression (zlib's stored
//! blocks, level 0, which every git reads), while its id is still being hashed on another
//! thread: the bytes go to a temporary file beside the objects, and it is renamed to its
//! name once the id is known. Compressing ten megabytes at git's level for loose objects
//! takes longer than the rest of an apply; `git gc` compresses the blob when it packs it.

use std::io::{self, Write};
use std::path::Path;

use super::Content;

/// The most bytes one stored block holds (its length is 16 bits).
const BLOCK: usize = 65_535;

/// How the temporary file of a blob being written is named, followed by the writer's pid and
/// a dash: `tmp_` is what `git prune` (and so `git gc`, after `gc.pruneExpire`) removes from
/// the objects directory, and the pid lets the next run remove a dead run's file at once.
pub const TEMP_PREFIX: &str = "tmp_obj_llm-apply-";

/// Write `content` as a blob into the loose object directory `objects`, uncompressed, and
/// return its id; the id is asked of `content` (hashed ahead) only once the bytes are
/// written. A blob already there is left as it is. With `flush`, the object is on disk
/// before its name appears. `written` is called between the two (the crash tests' kill
/// point inside the write).
pub fn write_stored_blob(
    objects: &Path,
    kind: gix::hash::Kind,
    content: &Content,
    flush: bool,
    written: impl FnOnce(),
) -> io::Result<gix::ObjectId> {
    if let Some(id) = content.known_blob_id(kind) {
        if object_path(objects, &id).exists() {
            return Ok(id);
        }
    }
    let mut tmp = temporary(objects)?;
    {
        // No buffer between: the blocks go to the file straight from the content (a buffer
        // would copy every byte once more).
        let header = gix::objs::encode::loose_header(gix::objs::Kind::Blob, content.len() as u64);
        let mut parts = vec![&header[..]];
        parts.extend(content.chunks());
        write_stored(tmp.as_file_mut(), &parts)?;
    }
    if flush {
        tmp.as_file().sync_all()?;
    }
    written();
    let id = content.blob_id(kind)?;
    // Written straight from a mapped file's bytes (and hashed from them): kept only if the
    // file did not change meanwhile, or the object would not hold what its name says.
    if content.source_changed() {
        return Err(Content::changed_error());
    }
    name_it(tmp, &object_path(objects, &id), flush)?;
    Ok(id)
}

/// Write a small object (a tree, a commit, a small blob: `data` without its header) into the
/// loose object directory `objects` the same way, uncompressed, unless it is loose there
/// already; return its id. Compression would cost more than the write: a zlib stream's set-up
/// alone (its window and tables, a quarter of a megabyte zeroed) is a twentieth of a one-line
/// apply for each object, and a snapshot writes four. `git gc` compresses them when it packs.
/// Not flushed: the snapshot flushes every object it wrote before its ref names them, when
/// writes are flushed.
pub fn write_stored_object(
    objects: &Path,
    hash: gix::hash::Kind,
    kind: gix::objs::Kind,
    data: &[u8],
) -> io::Result<gix::ObjectId> {
    let header = gix::objs::encode::loose_header(kind, data.len() as u64);
    let mut hasher = gix::hash::hasher(hash);
    hasher.update(&header);
    hasher.update(data);
    let id = hasher.try_finalize().map_err(io::Error::other)?;
    let path = object_path(objects, &id);
    if path.exists() {
        return Ok(id);
    }
    let mut tmp = temporary(objects)?;
    write_stored(tmp.as_file_mut(), &[&header, data])?;
    name_it(tmp, &path, false)?;
    Ok(id)
}

/// A temporary file for an object being written into `objects`, named for `git prune`.
fn temporary(objects: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
        .permissions(read_only())
        .tempfile_in(objects)
}

/// Give the written temporary file `tmp` its object's name `path`, in its fan-out directory
/// (made if missing); an object written meanwhile under that name holds the same bytes (the
/// name says so), and is kept.
fn name_it(tmp: tempfile::NamedTempFile, path: &Path, flush: bool) -> io::Result<()> {
    let dir = path.parent().expect("an object path has a directory");
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    match tmp.persist_noclobber(path) {
        Ok(_) => {}
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.error),
    }
    crate::sys::durable::Durability { fsync: flush }.dir(dir);
    Ok(())
}

fn object_path(objects: &Path, id: &gix::ObjectId) -> std::path::PathBuf {
    let hex = id.to_hex().to_string();
    objects.join(&hex[..2]).join(&hex[2..])
}

fn read_only() -> std::fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(0o444)
    }
    #[cfg(not(unix))]
    {
        let mut p = std::fs::metadata(".")
            .map(|m| m.permissions())
            .unwrap_or_else(|_| unreachable!("the working directory exists"));
        p.set_readonly(true);
        p
    }
}

/// Write `parts`, in order, to `out` as one zlib stream of stored blocks: the stream's header,
/// blocks of up to [`BLOCK`] bytes (the last one marked final), the Adler-32 of everything.
/// A block's bytes are taken where they lie (a block may span parts), and the blocks go out
/// many to one vectored write: a write per block costs the kernel a page-cache allocation
/// per 64 KiB, which takes about twice as long as the same bytes in large writes.
fn write_stored(out: &mut impl Write, parts: &[&[u8]]) -> io::Result<()> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let adler = parts
        .iter()
        .fold(1, |a, p| zlib_rs::adler32::adler32(a, p))
        .to_be_bytes();
    // At least one block, the final one, even for no bytes at all.
    let blocks = total.div_ceil(BLOCK).max(1);
    let heads: Vec<[u8; 5]> = (0..blocks)
        .map(|b| {
            let len = (total - b * BLOCK).min(BLOCK);
            block_header(len as u16, b + 1 == blocks)
        })
        .collect();
    // CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest, check bits): as zlib writes
    // for level 0.
    let mut batch: Vec<io::IoSlice<'_>> = vec![io::IoSlice::new(&[0x78, 0x01])];
    let mut rest = parts.iter().copied().filter(|p| !p.is_empty());
    let mut part: &[u8] = rest.next().unwrap_or(&[]);
    for head in &heads {
        batch.push(io::IoSlice::new(head));
        let mut want = BLOCK;
        while want > 0 && !part.is_empty() {
            let (now, later) = part.split_at(want.min(part.len()));
            batch.push(io::IoSlice::new(now));
            want -= now.len();
            part = later;
            if part.is_empty() {
                part = rest.next().unwrap_or(&[]);
            }
        }
        if batch.len() >= BATCH {
            write_all_of(out, &mut batch)?;
            batch.clear();
        }
    }
    batch.push(io::IoSlice::new(&adler));
    write_all_of(out, &mut batch)
}

/// How many slices one vectored write is given at most (Linux takes up to 1,024); a few in
/// tests, so that their streams cross batches.
const BATCH: usize = if cfg!(test) { 7 } else { 1000 };

/// A stored block's header: the final-block bit, then the length and its complement.
fn block_header(len: u16, last: bool) -> [u8; 5] {
    let mut head = [u8::from(last), 0, 0, 0, 0];
    head[1..3].copy_from_slice(&len.to_le_bytes());
    head[3..5].copy_from_slice(&(!len).to_le_bytes());
    head
}

/// Write all of `slices`, in order, with as few (vectored) writes as `out` takes them in.
fn write_all_of(out: &mut impl Write, slices: &mut [io::IoSlice<'_>]) -> io::Result<()> {
    let mut left = slices;
    // Set aside the empty slices in front, so that an empty rest means all is written.
    io::IoSlice::advance_slices(&mut left, 0);
    while !left.is_empty() {
        match out.write_vectored(left) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut left, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        write_stored(&mut out, parts).unwrap();
        out
    }

    fn inflated(z: &[u8], len: usize) -> Vec<u8> {
        // One byte of room more than expected: a stream that inflates to more shows.
        let mut out = vec![0; len + 1];
        let mut state = gix::zlib::Decompress::new();
        let n = gix::zlib::stream::inflate::read(&mut &z[..], &mut state, &mut out).unwrap();
        out.truncate(n);
        out
    }

    #[test]
    fn stored_streams_inflate_to_their_input() {
        let big: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let cases: Vec<Vec<&[u8]>> = vec![
            vec![],
            vec![b""],
            vec![b"blob 3\0abc"],
            vec![&big[..BLOCK]],
            vec![&big[..BLOCK], &big[BLOCK..BLOCK + 1]],
            vec![&big[..10], &big[10..BLOCK * 2 + 5], &big[BLOCK * 2 + 5..]],
            vec![&big],
            // Many small parts: blocks made of many slices each.
            big.chunks(300).collect(),
        ];
        for parts in cases {
            let whole: Vec<u8> = parts.concat();
            let z = stored(&parts);
            assert_eq!(
                inflated(&z, whole.len()),
                whole,
                "{} bytes in {} parts",
                whole.len(),
                parts.len()
            );
            let blocks = whole.len().div_ceil(BLOCK).max(1);
            assert_eq!(z.len(), 2 + 5 * blocks + whole.len() + 4);
        }
    }

    /// A writer that takes at most a few bytes of the first slice per call, and is
    /// interrupted every third call, as a slow pipe or a signal may make a file.
    struct Stingy {
        got: Vec<u8>,
        calls: usize,
    }

    impl Write for Stingy {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls % 3 == 0 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(self.calls % 7 + 1);
            self.got.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_writer_that_takes_little_at_a_time_gets_the_same_stream() {
        let big: Vec<u8> = (0..150_000u32).map(|i| (i * 13 % 253) as u8).collect();
        let whole = stored(&[b"blob 150000\0", &big]);
        let mut s = Stingy {
            got: Vec::new(),
            calls: 0,
        };
        write_stored(&mut s, &[b"blob 150000\0", &big]).unwrap();
        assert_eq!(s.got, whole);
    }
}
