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

/// Write `content` as a blob into the loose object directory `objects`, uncompressed, and
/// return its id; the id is asked of `content` (hashed ahead) only once the bytes are
/// written. A blob already there is left as it is. With `flush`, the object is on disk
/// before its name appears.
pub fn write_stored_blob(
    objects: &Path,
    kind: gix::hash::Kind,
    content: &Content,
    flush: bool,
) -> io::Result<gix::ObjectId> {
    if let Some(id) = content.known_blob_id(kind) {
        if object_path(objects, &id).exists() {
            return Ok(id);
        }
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-llm-apply-")
        .permissions(read_only())
        .tempfile_in(objects)?;
    {
        let mut out = Stored::new(io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut()));
        out.push(&gix::objs::encode::loose_header(
            gix::objs::Kind::Blob,
            content.len() as u64,
        ))?;
        for chunk in content.chunks() {
            out.push(chunk)?;
        }
        out.finish()?.flush()?;
    }
    if flush {
        tmp.as_file().sync_all()?;
    }
    let id = content.blob_id(kind)?;
    let path = object_path(objects, &id);
    let dir = path.parent().expect("an object path has a directory");
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    match tmp.persist_noclobber(&path) {
        Ok(_) => {}
        // Written meanwhile (its bytes are the same: the id says so).
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.error),
    }
    if flush {
        crate::durable::dir(dir);
    }
    Ok(id)
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

/// A zlib stream of stored blocks: the header, blocks of up to [`BLOCK`] bytes (the last
/// one marked final), the Adler-32 of everything.
struct Stored<W: Write> {
    out: W,
    pending: Vec<u8>,
    adler: u32,
}

impl<W: Write> Stored<W> {
    fn new(mut out: W) -> Stored<W> {
        // CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest, check bits): as zlib writes
        // for level 0.
        let _ = out.write_all(&[0x78, 0x01]);
        Stored {
            out,
            pending: Vec::with_capacity(BLOCK),
            adler: 1,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        self.adler = zlib_rs::adler32::adler32(self.adler, bytes);
        while !bytes.is_empty() {
            if self.pending.is_empty() && bytes.len() > BLOCK {
                // A whole block straight from the input; at least one byte stays for the
                // final block.
                self.block(&bytes[..BLOCK], false)?;
                bytes = &bytes[BLOCK..];
                continue;
            }
            let take = (BLOCK - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() == BLOCK && !bytes.is_empty() {
                let full = std::mem::take(&mut self.pending);
                self.block(&full, false)?;
                self.pending = full;
                self.pending.clear();
            }
        }
        Ok(())
    }

    fn block(&mut self, data: &[u8], last: bool) -> io::Result<()> {
        let len = data.len() as u16;
        let mut head = [u8::from(last), 0, 0, 0, 0];
        head[1..3].copy_from_slice(&len.to_le_bytes());
        head[3..5].copy_from_slice(&(!len).to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(data)
    }

    fn finish(mut self) -> io::Result<W> {
        let last = std::mem::take(&mut self.pending);
        self.block(&last, true)?;
        self.out.write_all(&self.adler.to_be_bytes())?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(parts: &[&[u8]]) -> Vec<u8> {
        let mut s = Stored::new(Vec::new());
        for p in parts {
            s.push(p).unwrap();
        }
        s.finish().unwrap()
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
}
