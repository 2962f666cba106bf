//! `git llm-apply completions SHELL`: completion scripts generated from the clap definitions
//! (clap_complete), and for bash also `_git_llm_apply`, the function git's own completion calls
//! for `git llm-apply <TAB>`: subcommands, options, values, snapshot ids for `undo`, hook names
//! for `hooks install`.

use clap::CommandFactory;
use clap_complete::aot::{generate, Shell};

use super::args::{Args, CompletionsArgs, ShellArg};
use super::hooks::READY_NAMES;
use super::Outcome;
use crate::report::RunStatus;

pub fn run(args: CompletionsArgs) -> Outcome {
    let CompletionsArgs { shell } = args;
    let shell = match shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Elvish => Shell::Elvish,
        ShellArg::Powershell => Shell::PowerShell,
    };
    let mut cmd = Args::command();
    let mut out: Vec<u8> = Vec::new();
    // Named as the binary on PATH: zsh's and fish's git completions, like bash's, hand
    // `git llm-apply` to the completion of `git-llm-apply`.
    generate(shell, &mut cmd, "git-llm-apply", &mut out);
    let mut text = String::from_utf8(out).expect("completion scripts are UTF-8");
    if shell == Shell::Bash {
        text.push_str(&git_bash());
    }
    Outcome::text(text, String::new(), RunStatus::Applied)
}

/// Every visible option of a command (`--long`, and `-s` where there is one), global ones
/// included once at the top.
fn options(cmd: &clap::Command, with_global: bool) -> Vec<String> {
    let mut out = Vec::new();
    for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        if a.is_global_set() && !with_global {
            continue;
        }
        if a.is_positional() {
            continue;
        }
        let takes_value = a.get_action().takes_values();
        if let Some(l) = a.get_long() {
            // `--color[=WHEN]` and valued options end in `=`, as git's own lists do.
            out.push(if takes_value {
                format!("--{l}=")
            } else {
                format!("--{l}")
            });
        }
    }
    out
}

/// Possible values of an option, by its long name.
fn values(cmd: &clap::Command, long: &str) -> Vec<String> {
    cmd.get_arguments()
        .find(|a| a.get_long() == Some(long))
        .map(|a| {
            a.get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn names(cmd: &clap::Command) -> Vec<String> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .collect()
}

/// `_git_llm_apply` for git's bash completion (`__gitcomp`, `__git` and `$cur`, `$words`,
/// `$cword` are git's). Lists come from the clap definitions, so they cannot go stale.
fn git_bash() -> String {
    let mut cmd = Args::command();
    cmd.build();
    let sub = |name: &str| {
        cmd.find_subcommand(name)
            .unwrap_or_else(|| panic!("{name} is a subcommand"))
            .clone()
    };
    let hooks = sub("hooks");
    let join = |v: Vec<String>| v.join(" ");
    let mut top = options(&cmd, true);
    top.push("-C".into());
    let mut arms = String::new();
    for name in names(&cmd) {
        if name == "hooks" {
            continue;
        }
        let c = sub(&name);
        let body = match name.as_str() {
            "undo" => "\t\t\tCOMPREPLY=()\n\t\t\t__gitcomp_nl \"$(__git for-each-ref --format='%(refname:strip=2)' refs/llm-apply/ 2>/dev/null)\"\n".to_string(),
            "completions" => format!(
                "\t\t\t__gitcomp \"{}\"\n",
                join(
                    c.get_arguments()
                        .filter(|a| a.is_positional())
                        .flat_map(|a| a.get_possible_values())
                        .map(|v| v.get_name().to_string())
                        .collect()
                )
            ),
            _ => String::new(),
        };
        arms.push_str(&format!(
            "\t{name})\n\t\tcase \"$cur\" in\n\t\t-*) __gitcomp \"{}\" ;;\n\t\t*)\n{body}\t\t\t;;\n\t\tesac\n\t\t;;\n",
            join(options(&c, false)),
        ));
    }
    let install = hooks
        .find_subcommand("install")
        .expect("hooks install exists");
    format!(
        r#"
# git's own completion calls this for `git llm-apply <TAB>`.
_git_llm_apply ()
{{
	local i start=0 sub= hooks_sub=
	for ((i = 1; i < cword; i++)); do
		if [ "${{words[i]}}" = llm-apply ]; then
			start=$i
			break
		fi
	done
	for ((i = start + 1; i < cword; i++)); do
		case "${{words[i]}}" in
		-C|--format) ((i++)) ;;
		-*) ;;
		*)
			if [ -z "$sub" ]; then
				sub="${{words[i]}}"
			elif [ "$sub" = hooks ] && [ -z "$hooks_sub" ]; then
				hooks_sub="${{words[i]}}"
			fi
			;;
		esac
	done
	case "$cur" in
	--format=*) __gitcomp "{formats}" "" "${{cur##--format=}}"; return ;;
	--color=*) __gitcomp "{colors}" "" "${{cur##--color=}}"; return ;;
	esac
	case "$prev" in
	--format) __gitcomp "{formats}"; return ;;
	-C) COMPREPLY=(); return ;;
	esac
	case "$sub" in
	"")
		case "$cur" in
		-*) __gitcomp "{top}" ;;
		*) __gitcomp "{subs}" ;;
		esac
		;;
	hooks)
		case "$hooks_sub" in
		"") __gitcomp "{hooks_subs}" ;;
		install)
			case "$cur" in
			-*) __gitcomp "{install_opts}" ;;
			*) __gitcomp "{hook_names}" ;;
			esac
			;;
		esac
		;;
{arms}	esac
}}
"#,
        formats = join(values(&cmd, "format")),
        colors = join(values(&cmd, "color")),
        top = join(top),
        subs = join(names(&cmd)),
        hooks_subs = join(names(&hooks)),
        install_opts = join(options(install, false)),
        hook_names = READY_NAMES.join(" "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_git_function_lists_what_clap_knows() {
        let f = git_bash();
        assert!(f.contains("_git_llm_apply ()"));
        assert!(
            f.contains("__gitcomp \"log undo hooks install-man edit mcp tools completions help\""),
            "{f}"
        );
        assert!(f.contains("\"auto unified codex search-replace\""), "{f}");
        assert!(
            f.contains("__gitcomp \"path-policy fetch-missing-blobs verify\""),
            "{f}"
        );
        assert!(f.contains("--no-snapshot"), "{f}");
        assert!(
            f.contains("__gitcomp \"bash zsh fish elvish powershell\""),
            "{f}"
        );
    }
}
