//! Every `llm-apply.*` key: its type, its default and what it does, read once in this process
//! as `git config` would read it (through gix: every level, includes, `-c`) and validated the
//! same way, so that an invalid value is one error naming the key and the value (exit 2)
//! whichever key it is. The manual's CONFIGURATION section is [`KEYS`].

use std::path::Path;
use std::time::Duration;

/// The key that sets the largest patch read (file or stdin), in bytes.
pub const MAX_PATCH_SIZE_KEY: &str = "llm-apply.maxPatchSize";

/// The default largest patch: 256 MiB, four times the old fixed 64 MiB. A run holds the patch
/// text, its parsed form, and the files it touches before and after (shared, not copied, by
/// the plan, the proof, the snapshot and the report): memory grows linearly, about 6 bytes at
/// peak per byte of a patch that creates one large file (measured: a 64 MB patch, 390 MB
/// resident). 256 MiB so stays near 1.5 GiB, which a laptop or a CI runner has; 1 GiB would
/// need some 6 GiB. A larger patch can be allowed for one run with
/// `git -c llm-apply.maxPatchSize=…`.
pub const DEFAULT_MAX_PATCH_SIZE: u64 = 256 * 1024 * 1024;

/// What a key's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number, 0 or more (git's `k`, `m`, `g` suffixes allowed).
    Count,
    /// Seconds, fractions allowed; 0 means no limit.
    Seconds,
    /// Whole seconds, 0 or more.
    WholeSeconds,
    /// git's booleans: true/yes/on/1, false/no/off/0; a key without a value is true.
    Bool,
    /// Any text; the key may be given several times.
    Text,
}

impl Kind {
    fn expected(self) -> &'static str {
        match self {
            Kind::Count => "not a whole number (0 or more)",
            Kind::Seconds => "not a number of seconds (e.g. 60 or 0.5; 0 means no limit)",
            Kind::WholeSeconds => "not a whole number of seconds (0 or more)",
            Kind::Bool => "not a boolean (true/false, yes/no, on/off, 1/0)",
            Kind::Text => "not a value (it is empty)",
        }
    }
}

/// One key: its name as documented, its kind, its default, and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The key as documented (`llm-apply.keep`).
    pub name: &'static str,
    /// What kind of value it takes, for reading it and for the error when it is bad.
    pub kind: Kind,
    /// The default, in words, for the manual.
    pub default: &'static str,
    /// What the key does, for the manual.
    pub about: &'static str,
}

/// Every key git-llm-apply and its ready-made hooks read.
pub const KEYS: [Key; 14] = [
    Key {
        name: "llm-apply.keep",
        kind: Kind::Count,
        default: "50",
        about: "how many snapshots are kept; older ones are dropped after each apply",
    },
    Key {
        name: "llm-apply.historyDepth",
        kind: Kind::Count,
        default: "50",
        about: "how many commits that touched a file are searched for a base the patch fits (strategy 3)",
    },
    Key {
        name: "llm-apply.lockTimeout",
        kind: Kind::WholeSeconds,
        default: "10",
        about: "how long to wait for another run holding the worktree's lock",
    },
    Key {
        name: "llm-apply.maxPatchSize",
        kind: Kind::Count,
        default: "256m",
        about: "the largest patch read, from a file or standard input, in bytes (git's k, m, g suffixes); a larger one is refused, exit 2",
    },
    Key {
        name: "llm-apply.hookTimeout",
        kind: Kind::Seconds,
        default: "60",
        about: "how long a pre-llm-apply or post-llm-apply hook may run before it is killed (0: no limit)",
    },
    Key {
        name: "llm-apply.verify",
        kind: Kind::Bool,
        default: "false",
        about: "as --verify: a failing post-llm-apply hook rolls the apply back",
    },
    Key {
        name: "llm-apply.fsync",
        kind: Kind::Bool,
        default: "false",
        about: "flush each write to disk before going on (files, journal, snapshot), so that an apply survives a power loss, not only a crash; off, as git leaves work-tree files unflushed",
    },
    Key {
        name: "llm-apply.protect",
        kind: Kind::Text,
        default: "(none)",
        about: "path-policy hook: a glob of paths to refuse; give it several times for several",
    },
    Key {
        name: "llm-apply.protectLockFiles",
        kind: Kind::Bool,
        default: "false",
        about: "path-policy hook: also refuse dependency lock files",
    },
    Key {
        name: "llm-apply.maxFiles",
        kind: Kind::Count,
        default: "(no limit)",
        about: "path-policy hook: refuse patches that touch more files than this",
    },
    Key {
        name: "llm-apply.maxLines",
        kind: Kind::Count,
        default: "(no limit)",
        about: "path-policy hook: refuse patches whose added and removed lines exceed this",
    },
    Key {
        name: "llm-apply.verifyCommand",
        kind: Kind::Text,
        default: "(none)",
        about: "verify hook: the command run from the top of the work tree after an apply",
    },
    Key {
        name: "llm-apply.fetchDepth",
        kind: Kind::Count,
        default: "50",
        about: "fetch-missing-blobs hook: how many commits of history to fetch at most",
    },
    Key {
        name: "llm-apply.fetchRemote",
        kind: Kind::Text,
        default: "the branch's remote, else origin",
        about: "fetch-missing-blobs hook: the remote to fetch from",
    },
];

/// The typed settings: every key's value, or its default.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `llm-apply.keep`: how many snapshots are kept.
    pub keep: u64,
    /// `llm-apply.historyDepth`: how many commits are searched for a base (strategy 3).
    pub history_depth: u64,
    /// `llm-apply.lockTimeout`: how long to wait for another run's lock.
    pub lock_timeout: Duration,
    /// The largest patch read, in bytes.
    pub max_patch_size: u64,
    /// `None`: no limit.
    pub hook_timeout: Option<Duration>,
    /// `llm-apply.verify`: a failing post hook rolls the apply back.
    pub verify: bool,
    /// `llm-apply.fsync`: see [`crate::sys::durable`].
    pub fsync: bool,
    /// `llm-apply.protect`: globs the path-policy hook refuses.
    pub protect: Vec<String>,
    /// `llm-apply.protectLockFiles`: the path-policy hook also refuses lock files.
    pub protect_lock_files: bool,
    /// `llm-apply.maxFiles`: the path-policy hook's limit on files touched.
    pub max_files: Option<u64>,
    /// `llm-apply.maxLines`: the path-policy hook's limit on lines added and removed.
    pub max_lines: Option<u64>,
    /// `llm-apply.verifyCommand`: what the verify hook runs.
    pub verify_command: Option<String>,
    /// `llm-apply.fetchDepth`: how many commits the fetch-missing-blobs hook fetches at most.
    pub fetch_depth: u64,
    /// `llm-apply.fetchRemote`: where the fetch-missing-blobs hook fetches from.
    pub fetch_remote: Option<String>,
    /// `color.diff.*` and `color.llm-apply.*`, as given (the report's colours read them).
    pub colors: Vec<(String, String)>,
    /// `core.hooksPath` is set: git resolves where the hooks are.
    pub hooks_path_set: bool,
    /// Whether to colour diffs, as git config says it: `color.diff` (or its old name
    /// `diff.color`), else `color.ui`; `None` when neither is set.
    pub color_diff: Option<String>,
    /// git may convert a file on its way into the index without a `.gitattributes` saying
    /// so: `core.autocrlf` is on (true or input), or `core.attributesFile` or `attr.tree`
    /// names attributes from elsewhere. The index's ids are then not the work tree's bytes'
    /// ([`crate::repo::IndexIds`]).
    pub converts_on_add: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            keep: 50,
            history_depth: 50,
            lock_timeout: Duration::from_secs(10),
            max_patch_size: DEFAULT_MAX_PATCH_SIZE,
            hook_timeout: Some(Duration::from_secs(60)),
            verify: false,
            fsync: false,
            protect: Vec::new(),
            protect_lock_files: false,
            max_files: None,
            max_lines: None,
            verify_command: None,
            fetch_depth: 50,
            fetch_remote: None,
            colors: Vec::new(),
            hooks_path_set: false,
            color_diff: None,
            converts_on_add: false,
        }
    }
}

/// Why git config could not be read, or holds a value we cannot use.
#[allow(missing_docs)] // each variant's #[error] message says what it is, fields included
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("git config {key} is '{value}', {expected}")]
    BadValue {
        key: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("cannot read git config: {stderr}")]
    Read { stderr: String },
}

impl crate::patch::kinds::Kinded for ConfigError {
    fn kind(&self) -> crate::patch::kinds::ErrorKind {
        crate::patch::kinds::ErrorKind::Config
    }
}

/// Read every `llm-apply.*` value in `dir` (every level git reads, `git -c` included, and
/// the report's `color.diff.*` and `color.llm-apply.*` with them) and type it. Read in this
/// process, as git reads it ([`entries`]): no git runs.
pub fn read(dir: &Path) -> Result<Config, ConfigError> {
    from_entries(&entries(dir)?)
}

/// Whether git config `key` (as `git config` spells it: section and name in lower case, a
/// subsection as written) is one we read.
fn wanted(key: &str) -> bool {
    ["llm-apply.", "color.diff.", "color.llm-apply."]
        .iter()
        .any(|p| key.starts_with(p))
        || [
            "color.diff",
            "diff.color",
            "color.ui",
            "core.hookspath",
            "core.autocrlf",
            "core.attributesfile",
            "attr.tree",
        ]
        .contains(&key)
}

/// The entries of the keys we read, in the order git reads them (the last one wins), as
/// `git config --get-regexp` would list them in `dir`: the system file (where this git keeps
/// it, unless `GIT_CONFIG_NOSYSTEM`, or `GIT_CONFIG_SYSTEM`), the global ones
/// (`GIT_CONFIG_GLOBAL`, or the XDG file and `~/.gitconfig`), the repository's and its
/// worktree's, every file they include (`includeIf` conditions decided as git does), then
/// `GIT_CONFIG_COUNT`'s and `-c`'s (`GIT_CONFIG_PARAMETERS`). A key without a value has `None`.
pub fn entries(dir: &Path) -> Result<Vec<(String, Option<String>)>, ConfigError> {
    entries_and_repository(dir).map(|(entries, _)| entries)
}

/// [`entries`], and the repository opened to read them (`None` outside one), for the run to
/// go on with rather than open it again.
pub(crate) type Opened = (
    Vec<(String, Option<String>)>,
    Option<gix::ThreadSafeRepository>,
);

pub(crate) fn entries_and_repository(dir: &Path) -> Result<Opened, ConfigError> {
    let read_err = |what: &str, e: &dyn std::fmt::Display| ConfigError::Read {
        stderr: format!("{what}: {e}"),
    };
    let file = match gix::discover::upwards(dir) {
        Ok((found, trust)) => {
            let repo = open_discovered(dir, found, trust)?
                .map_err(|e| read_err("cannot open the repository", &e))?;
            let entries = collect(repo.to_thread_local().config_snapshot().plumbing())?;
            return Ok((entries, Some(repo)));
        }
        Err(_) => outside_repository()?,
    };
    Ok((collect(&file)?, None))
}

/// The options every opening of a repository takes, so that gix reads config as git would:
/// the system file where this git keeps it, and `git -c`'s settings.
/// Open the repository `gix::discover::upwards(dir)` found, with the options git's config
/// gives ([`open_options`]): the one way both the config reader and `repo` open it.
pub fn open_discovered(
    dir: &Path,
    found: gix::discover::repository::Path,
    trust: gix::sec::Trust,
) -> Result<gix::Result<gix::ThreadSafeRepository>, ConfigError> {
    let (git_dir, _) = found.into_repository_and_work_tree_directories();
    let options = open_options(Some(&git_dir))?;
    Ok(gix::ThreadSafeRepository::discover_opts(
        dir,
        gix::discover::upwards::Options {
            trust: gix::discover::upwards::TrustPolicy::Assume(trust),
            ..Default::default()
        },
        options,
    ))
}

/// The options gix opens a repository with so that it reads config as git does: the
/// `git -c` overrides of this process and the system file this git reads.
pub fn open_options(
    git_dir: Option<&Path>,
) -> Result<gix::sec::trust::Mapping<gix::open::Options>, ConfigError> {
    let overrides: Vec<String> = parameters()?
        .into_iter()
        // gix splits an override at its first '=': a key holding one (in a subsection, as
        // `url.<base>.insteadOf` may) cannot be handed over, and no key we read has one.
        .filter(|(k, _)| !k.contains('='))
        .map(|(k, v)| match v {
            Some(v) => format!("{k}={v}"),
            None => k,
        })
        .collect();
    let system = system_file(git_dir);
    let mut map = gix::sec::trust::Mapping::<gix::open::Options>::default();
    for options in [&mut map.full, &mut map.reduced] {
        let mut o = std::mem::take(options).cli_overrides(overrides.clone());
        if let Some(path) = &system {
            o = o.system_config_path(path.clone());
        } else {
            o.permissions.config.system = false;
        }
        *options = o;
    }
    Ok(map)
}

/// The system-wide config file git reads: none under `GIT_CONFIG_NOSYSTEM`, the one
/// `GIT_CONFIG_SYSTEM` names, else the one built into the git binary.
pub(crate) fn system_file(git_dir: Option<&Path>) -> Option<std::path::PathBuf> {
    if std::env::var_os("GIT_CONFIG_NOSYSTEM").is_some_and(|v| git_bool(&v.to_string_lossy())) {
        return None;
    }
    if let Some(p) = std::env::var_os("GIT_CONFIG_SYSTEM") {
        return Some(p.into());
    }
    Some(super::binary::facts(git_dir).system_config)
}

/// A boolean environment variable as git reads one (`GIT_CONFIG_NOSYSTEM=1`, `=true`, ...).
fn git_bool(v: &str) -> bool {
    boolean(Some(v)).unwrap_or(false)
}

/// Outside a repository, git reads the system and global files and the command line's.
fn outside_repository() -> Result<gix::config::File, ConfigError> {
    use gix::config::{file::Metadata, Source};
    let read_err = |e: &dyn std::fmt::Display| ConfigError::Read {
        stderr: e.to_string(),
    };
    let env = |name: &str| std::env::var_os(name);
    let mut metas = Vec::new();
    if let Some(p) = system_file(None) {
        metas.push(Metadata::from(Source::System).at(p));
    }
    for source in [Source::Git, Source::User] {
        if let Some(p) = source.storage_location(&mut |n| env(n)) {
            metas.push(Metadata::from(source).at(p));
        }
    }
    let home = gix::path::env::home_dir();
    let options = gix::config::file::init::Options {
        includes: gix::config::file::includes::Options::follow_without_conditional(home.as_deref()),
        ..Default::default()
    };
    let mut buf = Vec::new();
    let mut file = gix::config::File::from_paths_metadata_buf(
        &mut metas.into_iter(),
        &mut buf,
        false,
        options,
    )
    .map_err(|e| read_err(&e))?
    .unwrap_or_default();
    if let Some(env_file) = gix::config::File::from_env(options).map_err(|e| read_err(&e))? {
        file.append(env_file).map_err(|e| read_err(&e))?;
    }
    let mut cli = gix::config::File::new(Metadata::from(Source::Cli));
    for (key, value) in parameters()? {
        let Some(k) = gix::config::KeyRef::parse_unvalidated(key.as_str().into()) else {
            continue;
        };
        let mut section = cli
            .section_mut_or_create_new(k.section_name, k.subsection_name)
            .map_err(|e| read_err(&e))?;
        section
            .push(k.value_name, value.as_deref().map(Into::into))
            .map_err(|e| read_err(&e))?;
    }
    file.append(cli).map_err(|e| read_err(&e))?;
    Ok(file)
}

/// The entries of `file` whose keys we read, in order; a key without `=` has no value.
fn collect(file: &gix::config::File) -> Result<Vec<(String, Option<String>)>, ConfigError> {
    use gix::config::parse::{EventRef, Events};
    let mut out = Vec::new();
    for section in file.sections() {
        let header = section.header();
        let name = header.name().to_string().to_ascii_lowercase();
        if !["llm-apply", "color", "diff", "core", "attr"].contains(&name.as_str()) {
            continue;
        }
        let prefix = match header.subsection_name() {
            Some(sub) => format!("{name}.{sub}."),
            None => format!("{name}."),
        };
        // The section's own text, parsed again, says which keys have no value at all
        // (`[llm-apply] verify`, true) and which an empty one (`verify =`, false).
        let text = section.to_bstring();
        let events = Events::from_bytes(&text, None).map_err(|e| ConfigError::Read {
            stderr: e.to_string(),
        })?;
        let mut current: Option<(String, Option<String>)> = None;
        let mut continued = Vec::new();
        let mut finish = |current: &mut Option<(String, Option<String>)>| {
            if let Some((key, value)) = current.take() {
                if wanted(&key) {
                    out.push((key, value));
                }
            }
        };
        for parsed in events.sections() {
            for event in parsed.body() {
                match event {
                    EventRef::SectionValueName(n) => {
                        finish(&mut current);
                        let key = format!("{prefix}{}", n.to_string().to_ascii_lowercase());
                        current = Some((key, None));
                    }
                    EventRef::KeyValueSeparator => {
                        if let Some((_, v)) = &mut current {
                            *v = Some(String::new());
                        }
                    }
                    EventRef::Value(v) => {
                        if let Some((_, Some(value))) = &mut current {
                            *value = gix::config::value::normalize(v).to_string();
                        }
                    }
                    EventRef::ValueNotDone(v) => continued.extend_from_slice(v),
                    EventRef::ValueDone(v) => {
                        continued.extend_from_slice(v);
                        if let Some((_, Some(value))) = &mut current {
                            *value =
                                gix::config::value::normalize(continued.as_slice()).to_string();
                        }
                        continued.clear();
                    }
                    _ => {}
                }
            }
        }
        finish(&mut current);
    }
    Ok(out)
}

/// The settings `git -c` passed down (`GIT_CONFIG_PARAMETERS`), in order: each `'key'` or
/// `'key'='value'` (git 2.31 and later), or `'key=value'` (older), single-quoted as a shell
/// quotes (`'\''` for a quote), separated by spaces. A key that names no section and key is
/// an error, as it is to git.
pub fn parameters() -> Result<Vec<(String, Option<String>)>, ConfigError> {
    let Some(raw) = std::env::var_os("GIT_CONFIG_PARAMETERS") else {
        return Ok(Vec::new());
    };
    let raw = raw.to_string_lossy();
    let bad = |why: &str| ConfigError::Read {
        stderr: format!("bogus GIT_CONFIG_PARAMETERS ({why}): {raw}"),
    };
    let mut out = Vec::new();
    let mut rest = raw.trim_start();
    while !rest.is_empty() {
        let (first, after) = quoted(rest).ok_or_else(|| bad("unquoted text"))?;
        let (key, value, after) = match after.strip_prefix('=') {
            Some(v) if v.starts_with('\'') => {
                let (value, after) = quoted(v).ok_or_else(|| bad("unquoted value"))?;
                (first, Some(value), after)
            }
            Some(_) => return Err(bad("unquoted value")),
            None => match first.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string()), after),
                None => (first, None, after),
            },
        };
        let (section, name) = match (key.find('.'), key.rfind('.')) {
            (Some(a), Some(b)) => (&key[..a], &key[b + 1..]),
            _ => ("", ""),
        };
        if section.is_empty() || name.is_empty() {
            return Err(ConfigError::Read {
                stderr: format!("key does not contain a section and a name: {key}"),
            });
        }
        out.push((key.clone(), value));
        if !(after.is_empty() || after.starts_with(' ')) {
            return Err(bad("no space between settings"));
        }
        rest = after.trim_start();
    }
    Ok(out)
}

/// One shell-quoted word at the start of `text` (`'a'\''b'` is `a'b`), and what follows it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut word = String::new();
    let mut rest = text.strip_prefix('\'')?;
    loop {
        let end = rest.find('\'')?;
        word.push_str(&rest[..end]);
        rest = &rest[end + 1..];
        match rest.strip_prefix("\\''") {
            Some(more) => {
                word.push('\'');
                rest = more;
            }
            None => return Some((word, rest)),
        }
    }
}

/// The config of a directory, read once for a run and shared by everything in it that asks
/// (it is read in this process, in well under a millisecond: no thread waits for it).
#[derive(Clone)]
pub struct Pending(std::rc::Rc<Read>);

struct Read {
    dir: std::path::PathBuf,
    config: Result<Config, ConfigError>,
    /// The repository opened to read it, until the run takes it over (gix built without
    /// its `parallel` feature shares it within one thread only, and so does this).
    repository: std::cell::RefCell<Option<gix::ThreadSafeRepository>>,
    /// The trees and commits earlier runs on that repository kept (`run/kept.rs`), for the
    /// run to go on with.
    objects: super::object_cache::SmallObjects,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Pending").field(&self.0.config).finish()
    }
}

impl Pending {
    /// Read the config of `dir`.
    pub fn start(dir: &Path) -> Pending {
        // The run names the current directory by its full path (and so every path of the
        // repository it opens): the repository opened here must name them the same way.
        let dir = if dir == Path::new(".") {
            std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf())
        } else {
            dir.to_path_buf()
        };
        match entries_and_repository(&dir) {
            Ok((entries, repo)) => {
                Pending::of(&dir, from_entries(&entries), repo, Default::default())
            }
            Err(e) => Pending::of(&dir, Err(e), None, Default::default()),
        }
    }

    /// The config of `dir` (a full path) as read already, the repository opened to read it,
    /// and the trees and commits earlier runs on that repository kept.
    pub(crate) fn of(
        dir: &Path,
        config: Result<Config, ConfigError>,
        repository: Option<gix::ThreadSafeRepository>,
        objects: super::object_cache::SmallObjects,
    ) -> Pending {
        Pending(std::rc::Rc::new(Read {
            dir: dir.to_path_buf(),
            config,
            repository: std::cell::RefCell::new(repository),
            objects,
        }))
    }

    /// The trees and commits earlier runs on the repository kept, for the run to share.
    pub fn objects(&self) -> super::object_cache::SmallObjects {
        self.0.objects.clone()
    }

    /// The config, or why it cannot be had.
    pub fn get(&self) -> Result<Config, ConfigError> {
        self.0.config.clone()
    }

    /// The config if it is valid.
    pub fn now(&self) -> Option<Config> {
        self.0.config.as_ref().ok().cloned()
    }

    /// The repository around `dir` as opened to read the config, once (opened with
    /// [`open_options`], as [`crate::repo::Repo::discover`] opens it): `None` when the config
    /// was read elsewhere, outside a repository, or the repository was taken already.
    pub fn take_repository(&self, dir: &Path) -> Option<gix::ThreadSafeRepository> {
        if self.0.dir != dir {
            return None;
        }
        self.0.repository.borrow_mut().take()
    }
}

/// The settings from config entries (keys in any case); the last value of a key wins, as in
/// git, but every value given must be valid. Keys we do not know are left alone, as git does.
pub fn from_entries(entries: &[(String, Option<String>)]) -> Result<Config, ConfigError> {
    let mut c = Config::default();
    let (mut diff, mut ui) = (None, None);
    for (name, value) in entries {
        // A key without a value is true.
        let given = || value.clone().unwrap_or_else(|| "true".into());
        if name.eq_ignore_ascii_case("color.diff") || name.eq_ignore_ascii_case("diff.color") {
            diff = Some(given());
            continue;
        }
        if name.eq_ignore_ascii_case("core.hookspath") {
            c.hooks_path_set = true;
            continue;
        }
        if name.eq_ignore_ascii_case("core.autocrlf") {
            c.converts_on_add |= boolean(value.as_deref()) != Some(false);
            continue;
        }
        if name.eq_ignore_ascii_case("core.attributesfile")
            || name.eq_ignore_ascii_case("attr.tree")
        {
            c.converts_on_add = true;
            continue;
        }
        if name.eq_ignore_ascii_case("color.ui") {
            ui = Some(given());
            continue;
        }
        if name.starts_with("color.") {
            c.colors
                .push((name.clone(), value.clone().unwrap_or_default()));
            continue;
        }
        let Some(key) = KEYS.iter().find(|k| k.name.eq_ignore_ascii_case(name)) else {
            continue;
        };
        let v = value.as_deref();
        let bad = || ConfigError::BadValue {
            key: key.name,
            value: v.unwrap_or("").to_string(),
            expected: key.kind.expected(),
        };
        match key.name {
            "llm-apply.keep" => c.keep = count(v).ok_or_else(bad)?,
            "llm-apply.historyDepth" => c.history_depth = count(v).ok_or_else(bad)?,
            "llm-apply.lockTimeout" => {
                c.lock_timeout = Duration::from_secs(count(v).ok_or_else(bad)?)
            }
            "llm-apply.maxPatchSize" => c.max_patch_size = count(v).ok_or_else(bad)?,
            "llm-apply.hookTimeout" => c.hook_timeout = seconds(v).ok_or_else(bad)?,
            "llm-apply.verify" => c.verify = boolean(v).ok_or_else(bad)?,
            "llm-apply.fsync" => c.fsync = boolean(v).ok_or_else(bad)?,
            "llm-apply.protect" => c.protect.push(v.unwrap_or("").to_string()),
            "llm-apply.protectLockFiles" => c.protect_lock_files = boolean(v).ok_or_else(bad)?,
            "llm-apply.maxFiles" => c.max_files = Some(count(v).ok_or_else(bad)?),
            "llm-apply.maxLines" => c.max_lines = Some(count(v).ok_or_else(bad)?),
            "llm-apply.verifyCommand" => c.verify_command = Some(text(v).ok_or_else(bad)?),
            "llm-apply.fetchDepth" => c.fetch_depth = count(v).ok_or_else(bad)?,
            "llm-apply.fetchRemote" => c.fetch_remote = Some(text(v).ok_or_else(bad)?),
            other => unreachable!("{other} is in KEYS but not typed here"),
        }
    }
    c.color_diff = diff.or(ui);
    Ok(c)
}

/// A whole number as git reads one (`--type=int`): digits with an optional `k`, `m` or `g`
/// (1024, 1024², 1024³); here never negative.
fn count(v: Option<&str>) -> Option<u64> {
    let v = v?.trim();
    let (digits, unit) = match v.char_indices().last()? {
        (i, 'k' | 'K') => (&v[..i], 1024),
        (i, 'm' | 'M') => (&v[..i], 1024 * 1024),
        (i, 'g' | 'G') => (&v[..i], 1024 * 1024 * 1024),
        _ => (v, 1),
    };
    let digits = digits.strip_prefix('+').unwrap_or(digits);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// Seconds, fractions allowed; 0 is no limit (`Some(None)`).
fn seconds(v: Option<&str>) -> Option<Option<Duration>> {
    let secs: f64 = v?.trim().parse().ok()?;
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return None;
    }
    Some((secs > 0.0).then(|| Duration::from_secs_f64(secs)))
}

/// git's boolean spellings; a key with no value is true, an empty one false.
fn boolean(v: Option<&str>) -> Option<bool> {
    let Some(v) = v else { return Some(true) };
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" | "" => Some(false),
        _ => None,
    }
}

fn text(v: Option<&str>) -> Option<String> {
    v.filter(|s| !s.trim().is_empty()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(k: &str, v: &str) -> (String, Option<String>) {
        (k.to_string(), Some(v.to_string()))
    }

    #[test]
    fn every_key_is_typed_and_defaults_hold() {
        assert_eq!(from_entries(&[]), Ok(Config::default()));
        let c = from_entries(&[
            e("llm-apply.keep", "3"),
            e("llm-apply.historydepth", "1k"),
            e("llm-apply.locktimeout", "0"),
            e("llm-apply.maxpatchsize", "2m"),
            e("llm-apply.hooktimeout", "0.25"),
            ("llm-apply.verify".into(), None),
            e("llm-apply.protect", "a/**"),
            e("llm-apply.protect", "b"),
            e("llm-apply.protectlockfiles", "yes"),
            e("llm-apply.maxfiles", "2"),
            e("llm-apply.maxlines", "+40"),
            e("llm-apply.verifycommand", "make -s"),
            e("llm-apply.fetchdepth", "7"),
            e("llm-apply.fetchremote", "up"),
            e("llm-apply.unknown", "whatever"),
        ])
        .expect("valid");
        assert_eq!(c.keep, 3);
        assert_eq!(c.history_depth, 1024);
        assert_eq!(c.lock_timeout, Duration::ZERO);
        assert_eq!(c.max_patch_size, 2 * 1024 * 1024);
        assert_eq!(c.hook_timeout, Some(Duration::from_millis(250)));
        assert!(c.verify && c.protect_lock_files);
        assert_eq!(c.protect, ["a/**", "b"]);
        assert_eq!((c.max_files, c.max_lines), (Some(2), Some(40)));
        assert_eq!(c.verify_command.as_deref(), Some("make -s"));
        assert_eq!((c.fetch_depth, c.fetch_remote.as_deref()), (7, Some("up")));
        let documented = KEYS.iter().find(|k| k.name == MAX_PATCH_SIZE_KEY);
        assert_eq!(
            count(documented.map(|k| k.default)),
            Some(DEFAULT_MAX_PATCH_SIZE),
            "the manual's default is the one in force"
        );
        let none = from_entries(&[e("llm-apply.hooktimeout", "0")]).expect("valid");
        assert_eq!(none.hook_timeout, None);
    }

    #[test]
    fn an_invalid_value_names_the_key_and_the_value_whatever_the_key() {
        for (key, value) in [
            ("llm-apply.keep", "abc"),
            ("llm-apply.keep", "-1"),
            ("llm-apply.historyDepth", "deep"),
            ("llm-apply.lockTimeout", "-5"),
            ("llm-apply.maxPatchSize", "1t"),
            ("llm-apply.maxPatchSize", "big"),
            ("llm-apply.hookTimeout", "soon"),
            ("llm-apply.verify", "maybe"),
            ("llm-apply.protectLockFiles", "2"),
            ("llm-apply.maxFiles", "many"),
            ("llm-apply.maxLines", "1.5"),
            ("llm-apply.fetchDepth", ""),
            ("llm-apply.verifyCommand", " "),
        ] {
            let err = from_entries(&[e(&key.to_ascii_lowercase(), value)])
                .expect_err(&format!("{key}={value}"));
            let text = err.to_string();
            assert!(
                text.starts_with(&format!("git config {key} is '{value}', not ")),
                "{text}"
            );
        }
    }

    #[test]
    fn conversions_on_add_are_told_from_the_keys_that_set_them() {
        let converts = |entries: &[(String, Option<String>)]| {
            from_entries(entries).expect("valid").converts_on_add
        };
        assert!(!converts(&[]));
        assert!(!converts(&[e("core.autocrlf", "false")]));
        assert!(!converts(&[e("core.autocrlf", "off")]));
        assert!(converts(&[e("core.autocrlf", "true")]));
        assert!(converts(&[e("core.autocrlf", "input")]));
        assert!(converts(&[("core.autocrlf".to_string(), None)]));
        // The last value wins in git, but any value that converts rules the index out here.
        assert!(converts(&[
            e("core.autocrlf", "true"),
            e("core.autocrlf", "false")
        ]));
        assert!(converts(&[e("core.attributesfile", "~/.gitattributes")]));
        assert!(converts(&[e("attr.tree", "HEAD")]));
    }

    #[test]
    fn every_key_has_one_documented_spelling() {
        for k in KEYS {
            assert!(k.name.starts_with("llm-apply."));
            assert!(!k.default.is_empty() && !k.about.is_empty());
            // Each is typed (from_entries panics on a key it does not know).
            let _ = from_entries(&[(k.name.to_ascii_lowercase(), None)]);
        }
    }
}
