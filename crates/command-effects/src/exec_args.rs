//! An exec's own argv, with no shell between it and the program (the exec gate judges real
//! execs): every word is literal. Its words after the program as the command view's static
//! arguments, so the same grammars ([`crate::git`], [`crate::gh`]) read it.

use shell_syntax::view::Arg;

/// `argv[1..]` as static arguments (the made-up words live in `arena`).
pub fn literal_args<'a>(arena: &'a bumpalo::Bump, argv: &'a [String]) -> Vec<Arg<'a>> {
    argv.iter()
        .skip(1)
        .map(|a| Arg::synthetic(arena, a.as_str(), shell_syntax::Span::default()))
        .collect()
}
