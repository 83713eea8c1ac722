//! `command-effects`: one model of what a shell command runs and what each program does, over
//! shell-syntax's command view, shared by every guard.
//!
//! - [`program`]: the program bash runs for each invocation (functions that shadow programs,
//!   runners the view does not unwrap, `ssh host cmd`, package runners, dashed git, `xargs -I`).
//! - Per-program grammars, each kept as data: [`git`] (global options, `-c`, `GIT_CONFIG_*`),
//!   [`git_options`] (subcommand options: unique prefixes, `--no-X`, last one wins),
//!   [`git_push`], [`git_alias`], [`git_runs`] (commands handed to git),
//!   [`git_run_settings`] (settings and variables whose value git runs),
//!   [`git_config_files`] (config files a call names), [`gh`] (pflag), [`gh_api`], [`http`] (curl, wget, HTTPie,
//!   xh), [`network`] (the hosts a run contacts), [`files`] (programs that write or remove
//!   files), [`repo`] (owner/repo in URLs), [`git_url`] (where a git URL points), [`owner`] (the owner
//!   a git URL names).
//! - [`exec_args`]: an exec's own argv (no shell around it) as static arguments.
//! - [`dirs`]: the directory each invocation runs in (`cd`, `CDPATH`, functions that shadow
//!   `cd` or change directory when called, git's `-C`).
//! - [`effects`]: each run's effects: a git/gh operation, an HTTP call, a file written or
//!   removed, a network destination, a model launch. A word decided at run time stays `None`.
//!
//! - [`sourced`]: a command with the files it `source`s in place (given their text).
//! - [`written`]: the text a command writes into a file when the command holds it.
//! - [`scripts`]: the scripts a command runs by path (and by bare name from a folder it put in
//!   front of `PATH`, or as git's external subcommand), with the text it wrote into them first.
//!
//! No I/O: facts about the machine (the current branch, aliases in config files) belong to the
//! guards' own world traits.

/// The [`shell_syntax::NameSet`] of a table's names, built at compile time: a scan of the
/// table for a name it cannot hold (most programs, for most tables) is skipped.
macro_rules! names_of {
    ($table:expr, $row:ident => $name:expr) => {{
        let mut set = shell_syntax::NameSet::EMPTY;
        let mut i = 0;
        while i < $table.len() {
            let $row = &$table[i];
            set = set.with($name);
            i += 1;
        }
        set
    }};
}
pub(crate) use names_of;

pub mod argv0;
pub mod dirs;
pub mod effects;
pub mod exec_args;
mod file_grammars;
pub mod files;
pub mod find;
pub mod functions;
pub mod gh;
pub mod gh_api;
pub mod git;
pub mod git_alias;
pub mod git_config;
pub mod git_config_files;
pub mod git_head;
pub mod git_options;
pub mod git_push;
pub mod git_receive_pack;
pub mod git_run_settings;
pub mod git_runs;
pub mod git_subtree;
pub mod git_url;
pub mod http;
pub mod network;
pub mod opaque;
pub mod owner;
pub mod piped;
pub mod program;
pub mod repo;
pub mod runners;
pub mod scripts;
pub mod sourced;
pub mod written;

pub use effects::{effects_of, Effect};

/// `a == b` for the names in this crate's tables, the first byte compared before the rest: a
/// table scan for every run then rarely calls `memcmp`.
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}
pub use program::{resolve, Resolved, Run};
