//! What the git binary that would run is: its version and where it keeps its system-wide
//! config, asked of it once and then remembered beside the repository, keyed by the binary's
//! path, size and modification time, so that a run that needs neither learns both without
//! starting a process.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::Git;

/// What a git binary says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// `git --version`'s line, trimmed (empty when the binary could not be run).
    pub version: String,
    /// The system-wide config file it reads when neither `GIT_CONFIG_NOSYSTEM` nor
    /// `GIT_CONFIG_SYSTEM` says otherwise (built into the binary: `/etc/gitconfig` for a git
    /// installed under `/usr`, `<prefix>/etc/gitconfig` for one installed elsewhere).
    pub system_config: PathBuf,
}

/// The file, under a repository's git directory, that remembers the facts of the last binary.
const CACHE: &str = "llm-apply/git-binary";

/// The binary `$GIT_LLM_APPLY_GIT` (default `git`) names, found on `PATH` as a shell finds
/// it when it names no directory.
/// Looked up once per process: the environment it is found from does not change.
pub fn resolved() -> Option<PathBuf> {
    static RESOLVED: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    RESOLVED
        .get_or_init(|| {
            let git = super::binary();
            if git.components().count() > 1 {
                return Some(git);
            }
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|d| d.join(&git))
                .find(|c| is_executable(c))
        })
        .clone()
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The key the facts are remembered under: the binary's path, size and modification time
/// (nanoseconds). `None` when the binary cannot be found.
fn key() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let bin = resolved()?;
    let meta = std::fs::metadata(&bin).ok()?;
    Some(format!(
        "{}\0{}\0{}.{:09}",
        bin.display(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec()
    ))
}

/// The oldest git whose `apply`, `worktree` and object commands we test against (the
/// transcripts in tests/fixtures start there).
pub const MIN_GIT: [u32; 3] = [2, 17, 0];

impl Facts {
    /// The version as numbers, when `git --version` said one.
    pub fn version(&self) -> Option<[u32; 3]> {
        parse_version(&self.version)
    }
}

/// The binary's facts: remembered under `git_dir` when they were learnt for this very binary,
/// else asked of it (`git --version`, `git var GIT_CONFIG_SYSTEM`). Only the facts of a git
/// we run with are written down: a git older than [`MIN_GIT`] is refused, and a refused run
/// leaves nothing behind.
pub fn facts(git_dir: Option<&Path>) -> Facts {
    // A run asks more than once (the config reader, the version check), and a server asks on
    // every call: the last answer is kept for as long as the binary is the same.
    static LAST: std::sync::Mutex<Option<(String, Facts)>> = std::sync::Mutex::new(None);
    let key = key();
    if let Some(k) = &key {
        let last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, f)) = last.as_ref().filter(|(at, _)| at == k) {
            return f.clone();
        }
    }
    let found = facts_for(key.as_deref(), git_dir);
    if let Some(k) = key {
        *LAST.lock().unwrap_or_else(|e| e.into_inner()) = Some((k, found.clone()));
    }
    found
}

/// [`facts`] from the file beside the repository, or from the binary itself.
fn facts_for(key: Option<&str>, git_dir: Option<&Path>) -> Facts {
    let cache = git_dir.map(|d| d.join(CACHE));
    if let (Some(key), Some(cache)) = (key, &cache) {
        if let Some(f) = remembered(cache, key) {
            return f;
        }
    }
    let learnt = ask();
    if let (Some(key), Some(cache)) = (key, &cache) {
        if learnt.version().is_some_and(|v| v >= MIN_GIT) {
            remember(cache, key, &learnt);
        }
    }
    learnt
}

fn remembered(cache: &Path, key: &str) -> Option<Facts> {
    let text = std::fs::read_to_string(cache).ok()?;
    let mut lines = text.split('\n');
    if lines.next()? != key {
        return None;
    }
    let version = lines.next()?.to_string();
    let system_config = PathBuf::from(lines.next()?);
    (lines.next() == Some("") && lines.next().is_none()).then_some(Facts {
        version,
        system_config,
    })
}

/// Written to a file of its own and renamed over the old one, so that a reader sees either
/// whole; a failure to write only means asking again next time.
fn remember(cache: &Path, key: &str, f: &Facts) {
    let Some(dir) = cache.parent() else { return };
    let system = f.system_config.to_string_lossy();
    if f.version.contains('\n') || system.contains('\n') || std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!("git-binary.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut file| write!(file, "{key}\n{}\n{system}\n", f.version));
    if written.is_err() || std::fs::rename(&tmp, cache).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Ask the binary (two processes; run once per binary and repository).
fn ask() -> Facts {
    let version = Git::new(Path::new("."))
        .arg("--version")
        .run()
        .map(|o| o.stdout.trim().to_string())
        .unwrap_or_default();
    // `git var GIT_CONFIG_SYSTEM` (git 2.42 and later) prints the compiled-in path when the
    // variables that change it are unset.
    let asked = Git::new(Path::new("."))
        .args(["var", "GIT_CONFIG_SYSTEM"])
        .env_remove("GIT_CONFIG_SYSTEM")
        .env_remove("GIT_CONFIG_NOSYSTEM")
        .run()
        .ok()
        .filter(|o| o.success())
        .map(|o| o.stdout.trim().to_string())
        .filter(|p| !p.is_empty() && !p.contains('\n'));
    Facts {
        version,
        system_config: asked
            .map(PathBuf::from)
            .unwrap_or_else(guessed_system_config),
    }
}

/// For a git too old to say: the path git's own build picks by default, from where the
/// binary is installed (`/usr/bin/git` reads `/etc/gitconfig`, `<prefix>/bin/git` reads
/// `<prefix>/etc/gitconfig`).
fn guessed_system_config() -> PathBuf {
    let prefix = resolved()
        .and_then(|b| b.canonicalize().ok())
        .and_then(|b| b.parent().and_then(Path::parent).map(Path::to_path_buf));
    match prefix {
        Some(p) if p != Path::new("/usr") && p != Path::new("/") => p.join("etc/gitconfig"),
        _ => PathBuf::from("/etc/gitconfig"),
    }
}

/// `git version 2.39.5`, `git version 2.39.5.windows.1`, `git version 2.17.0 (Apple Git-1)`
/// → [2, 39, 5]; `None` for anything else.
pub fn parse_version(text: &str) -> Option<[u32; 3]> {
    let number = text
        .trim()
        .strip_prefix("git version ")?
        .split(' ')
        .next()?;
    let mut parts = number.split('.');
    let mut v = [0; 3];
    for (i, slot) in v.iter_mut().enumerate() {
        match parts.next() {
            Some(p) => {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                *slot = digits.parse().ok()?;
            }
            None if i == 2 => {}
            None => return None,
        }
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_remembered_for_the_same_binary_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = dir.path().join(CACHE);
        let f = Facts {
            version: "git version 2.47.3".into(),
            system_config: PathBuf::from("/usr/local/etc/gitconfig"),
        };
        remember(&cache, "/bin/git\u{0}10\u{0}5.000000001", &f);
        assert_eq!(
            remembered(&cache, "/bin/git\u{0}10\u{0}5.000000001"),
            Some(f.clone())
        );
        assert_eq!(remembered(&cache, "/bin/git\u{0}11\u{0}5.000000001"), None);
        std::fs::write(&cache, "k\nv\n").expect("write");
        assert_eq!(remembered(&cache, "k"), None, "a cut file is not believed");
    }
}
