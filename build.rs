//! How the Linux binary is linked, for a faster start (the code is compiled as before; only
//! the link changes, and only for glibc targets):
//!
//! - Position-dependent: a position-independent binary spends a fifth of a small apply's
//!   start relocating its 27,000 pointers and copying the pages that hold them (measured with
//!   `perf stat` on `--check` of a one-line patch: 1.78 ms of CPU and 293 page faults against
//!   1.55 ms and 195).
//! - GCC's unwinder linked in (`libgcc_eh.a`) instead of loaded from `libgcc_s.so.1`: that
//!   library's constructor asks the processor for its features with a dozen `cpuid`
//!   instructions, and in a virtual machine each one traps to the hypervisor.
//!   Where the compiler has no `libgcc_eh.a`, the link is left as it was. GCC 12 and later,
//!   built for glibc 2.35 or later, make its unwinder call `_dl_find_object` (glibc 2.35): a
//!   binary built on such a system needs that glibc (the release images, glibc 2.34, are not
//!   such systems: docs/release.md checks the floor).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    // glibc targets only: a musl binary is linked static-pie, started by a self-relocating
    // entry point that a position-dependent link would not fit, and it has no libgcc_s.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    if let Some(dir) = static_unwinder() {
        // rustc asks for `-lgcc_s`; the linker takes the first `libgcc_s.*` on its search
        // path, and this directory is searched before the system's.
        println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    }
}

/// A directory holding `libgcc_s.a`: the compiler's `libgcc_eh.a` under the name rustc asks
/// the linker for.
fn static_unwinder() -> Option<PathBuf> {
    // The linker rustc links with: `-C linker=`, else the one cargo was given for the
    // target, else (building for this machine only) the C compiler; a cross build without a
    // linker named would ask the wrong compiler.
    let cc = match linker_flag().or_else(|| std::env::var("RUSTC_LINKER").ok()) {
        Some(linker) => linker,
        None if std::env::var("TARGET").ok() == std::env::var("HOST").ok() => {
            std::env::var("CC").unwrap_or_else(|_| "cc".into())
        }
        None => return None,
    };
    // `CC` may carry arguments (`ccache gcc`).
    let mut words = cc.split_whitespace();
    let out = Command::new(words.next()?)
        .args(words)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let found = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // An unknown file is printed back as its bare name.
    if !out.status.success() || !found.is_absolute() || !found.is_file() {
        return None;
    }
    let dir = Path::new(&std::env::var_os("OUT_DIR")?).join("unwind");
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::copy(&found, dir.join("libgcc_s.a")).ok()?;
    Some(dir)
}

/// The linker a `-C linker=` in the rustc flags names, if one does.
fn linker_flag() -> Option<String> {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").ok()?;
    let mut flags = flags.split('\x1f');
    let mut found = None;
    while let Some(flag) = flags.next() {
        let codegen = match flag.strip_prefix("-C") {
            Some("") => flags.next().unwrap_or_default(),
            Some(rest) => rest,
            None => continue,
        };
        if let Some(linker) = codegen.strip_prefix("linker=") {
            found = Some(linker.to_string());
        }
    }
    found
}
