//! Whether the human report is coloured: `--color`, then `NO_COLOR`, then git's own
//! setting for diffs (`color.diff`, falling back to `color.ui`), then whether the stream
//! is a terminal.

use std::path::Path;

use super::args::ColorArg;
use crate::git::Git;

/// `is_tty`: whether the stream the report goes to is a terminal. `setting`: what git config
/// says (`color.diff`, else `color.ui`) when it has been read; None asks git.
pub fn enabled(choice: ColorArg, dir: &Path, is_tty: bool, setting: Option<Option<&str>>) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            // https://no-color.org: any non-empty value turns colour off.
            if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                return false;
            }
            // Off a terminal only `always` colours (git's `auto` also looks at its pager, which
            // is asked about when git runs one for us): no need to ask git.
            if let (false, Some(value), None) =
                (is_tty, setting, std::env::var_os("GIT_PAGER_IN_USE"))
            {
                return value.is_some_and(|v| v.trim().eq_ignore_ascii_case("always"));
            }
            git_says(dir, is_tty).unwrap_or_else(|| is_tty && !dumb_terminal())
        }
    }
}

/// git's answer for colouring a diff on this stream: it reads `color.diff` and `color.ui`
/// (`always`, `never`, `auto`, booleans) from every config level and knows `TERM=dumb`.
/// `None` when git cannot be asked.
fn git_says(dir: &Path, is_tty: bool) -> Option<bool> {
    let out = Git::new(dir)
        .args(["config", "--get-colorbool", "color.diff"])
        .arg(if is_tty { "true" } else { "false" })
        .run()
        .ok()?;
    match out.stdout.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}
