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

/// The name on PATH, which every shell's completion is registered for.
const BIN: &str = "git-llm-apply";

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
    generate(shell, &mut cmd, BIN, &mut out);
    let mut text = String::from_utf8(out).expect("completion scripts are UTF-8");
    if shell == Shell::Bash {
        text = mend_bash_states(&text, BIN);
        text.push_str(&git_bash());
    }
    Outcome::text(text, String::new(), RunStatus::Applied)
}

/// clap_complete's bash script (4.6) walks the typed words into a state named with each `-` of
/// the binary's name spelled `__`, but labels the arms that act on a subcommand's state with
/// each `-` spelled as its subcommand separator, so for a hyphenated name like ours no
/// subcommand arm ever matches and `git-llm-apply undo --<TAB>` offers nothing
/// (clap-rs/clap#6421). The arms are relabelled the way the walk spells them; once clap agrees
/// with itself there is nothing to relabel and this changes nothing.
fn mend_bash_states(script: &str, bin: &str) -> String {
    const SEP: &str = "__subcmd__";
    let wrong = format!("{}{SEP}", bin.replace('-', SEP));
    let right = format!("{}{SEP}", bin.replace('-', "__"));
    if wrong == right {
        return script.to_string();
    }
    script
        .split_inclusive('\n')
        .map(|line| {
            let label = line.trim_start();
            if label.starts_with(&wrong) && label.trim_end().ends_with(')') {
                line.replacen(&wrong, &right, 1)
            } else {
                line.to_string()
            }
        })
        .collect()
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

/// The `case` arms that complete option values: `"SUB,--opt="*)` for the value typed after
/// `=`, and, for options whose value may be the next word, `"SUB,--opt")` for `$prev`. SUB is
/// the subcommand (empty at the top); global options match under any.
fn value_arms(cmd: &clap::Command) -> (String, String) {
    let mut after_eq = String::new();
    let mut after_word = String::new();
    let mut add = |sub: &str, c: &clap::Command, global: bool| {
        for a in c.get_arguments().filter(|a| !a.is_hide_set()) {
            if a.is_global_set() != global {
                continue;
            }
            let Some(long) = a.get_long() else { continue };
            let vals: Vec<String> = a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if vals.is_empty() {
                continue;
            }
            let vals = vals.join(" ");
            after_eq.push_str(&format!(
                "\t{sub},--{long}=*) __gitcomp \"{vals}\" \"\" \"${{cur##--{long}=}}\"; return ;;\n"
            ));
            // `--color` alone means always: the word after it is not its value.
            if !a.is_require_equals_set() {
                after_word.push_str(&format!(
                    "\t{sub},--{long}) __gitcomp \"{vals}\"; return ;;\n"
                ));
            }
        }
    };
    add("\"\"", cmd, false);
    for sc in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        add(&format!("\"{}\"", sc.get_name()), sc, false);
    }
    add("*", cmd, true);
    (after_eq, after_word)
}

/// Every option, of any command, whose value may be the next word (`-C DIR`, `--for API`): the
/// walk over the typed words must not take that word for a subcommand.
fn separate_valued(cmd: &clap::Command) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |c: &clap::Command| {
        for a in c.get_arguments() {
            if a.is_positional() || !a.get_action().takes_values() || a.is_require_equals_set() {
                continue;
            }
            let flags = a
                .get_long()
                .map(|l| format!("--{l}"))
                .into_iter()
                .chain(a.get_short().map(|s| format!("-{s}")));
            for f in flags {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
    };
    add(cmd);
    for sc in cmd.get_subcommands() {
        add(sc);
        sc.get_subcommands().for_each(&mut add);
    }
    out
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
    let (after_eq, after_word) = value_arms(&cmd);
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
		{separate}) ((i++)) ;;
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
	case "$sub,$cur" in
{after_eq}	esac
	case "$sub,$prev" in
{after_word}	*,-C) COMPREPLY=(); return ;;
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
        separate = separate_valued(&cmd).join("|"),
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
    fn every_state_the_bash_walk_reaches_has_an_arm() {
        let mut cmd = Args::command();
        let mut out = Vec::new();
        generate(Shell::Bash, &mut cmd, BIN, &mut out);
        let script = mend_bash_states(&String::from_utf8(out).expect("UTF-8"), BIN);
        let arms: Vec<&str> = script
            .lines()
            .filter_map(|l| l.trim().strip_suffix(')'))
            .collect();
        let states: Vec<&str> = script
            .lines()
            .filter_map(|l| l.trim().strip_prefix("cmd=\""))
            .filter_map(|l| l.strip_suffix('"'))
            .filter(|state| !state.is_empty())
            .collect();
        assert!(
            states.contains(&"git__llm__apply__subcmd__undo"),
            "{script}"
        );
        for state in states {
            assert!(arms.contains(&state), "no arm for {state}");
        }
    }

    #[test]
    fn mending_leaves_a_name_without_hyphens_alone() {
        let script = "        app__subcmd__undo)\n";
        assert_eq!(mend_bash_states(script, "app"), script);
    }

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
