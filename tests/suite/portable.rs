//! Which build this is: the Linux-only paths (file mapping with its SIGBUS handler,
//! RENAME_EXCHANGE, thread pinning, coarse-clock stamps) or their portable fallbacks, which
//! every other system gets and `--features portable` forces on Linux (.ci/run runs the write,
//! read, snapshot and undo tests that way). The fallbacks' own tests sit beside them in src/.

use git_llm_apply::repo::{Entry, Files as _, WorkTree};

/// A file of 4 MiB or more, settled (older than the coarse clock's tick), as a run reads it.
fn read_big_file() -> Option<bool> {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = b"line\n".repeat((4 << 20) / 5 + 1);
    std::fs::write(dir.path().join("big"), &big).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(40));
    let Ok(Entry::File(f)) = WorkTree::new(dir.path()).read("big") else {
        panic!("big is a file")
    };
    assert!(
        f.bytes[..] == big[..],
        "the bytes are the file's either way"
    );
    f.bytes.mapped_intact()
}

#[cfg(all(target_os = "linux", not(feature = "portable")))]
#[test]
fn on_linux_a_big_settled_file_is_mapped() {
    assert_eq!(read_big_file(), Some(true));
}

#[cfg(any(not(target_os = "linux"), feature = "portable"))]
#[test]
fn with_the_portable_fallbacks_a_big_file_is_read_not_mapped() {
    assert_eq!(read_big_file(), None);
}
