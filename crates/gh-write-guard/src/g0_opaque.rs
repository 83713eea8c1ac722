//! G0.opaque (issue 42): a command that runs code chosen at run time in a way the reader does
//! not model (command-effects' [`opaque`](command_effects::opaque): a script piped into a
//! shell from a program whose output nobody can read first, `eval`/`sh -c` of run-time text, a
//! program word the command computes, bash's lookup rules moved by the command) while the same
//! command reaches a program that could write (git, gh, an HTTP client, a shell) is refused as
//! a typed unknown. An honest command can always be written out plainly; ordinary commands
//! (`"$EDITOR" f`, `eval "$(ssh-agent -s)"`, `cat <<EOF | sh` with literal text) never meet it.

use crate::analysis::{Analysis, Unit};
use crate::finding::{Code, Finding};
use crate::g0_unparsed::mentions_git_or_gh;
use command_effects::opaque::{self, may_write, Opaque};
use command_effects::program::Resolved;
use serde_json::json;

/// The remedy, shared with every guard that refuses run-time code.
pub const REMEDY: &str = "Write it out plainly: name the program and the script text literally \
     (no eval or shell fed run-time text, no program chosen at run time).";

/// Programs that look a name up and print where it leads (`command -v git`).
const LOOKERS: &[&str] = &["command", "which", "type", "whence", "hash", "whereis"];

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let found: Vec<(usize, Opaque)> = a
        .units
        .iter()
        .enumerate()
        .flat_map(|(u, unit)| {
            opaque::find(unit.view(), &unit.text)
                .into_iter()
                .map(move |o| (u, o))
        })
        .collect();
    if found.is_empty() {
        return Vec::new();
    }
    let Some(writer) = reached_writer(a, &found) else {
        return Vec::new();
    };
    let (u, first) = &found[0];
    let inv = &a.units[*u].view().invocations[first.invocation];
    vec![Finding::deny(
        Code::G0Opaque,
        format!(
            "this command runs code chosen at run time ({}) and reaches {writer}",
            first.what
        ),
        REMEDY,
        json!({
            "opaque": found.iter().map(|(u, o)| json!({
                "unit": u, "invocation": o.invocation, "kind": o.kind.as_str(), "what": o.what,
            })).collect::<Vec<_>>(),
            "reaches": writer,
            "span": [inv.span.start, inv.span.end],
        }),
    )]
}

/// The first program of the command that could write (git, gh, an HTTP client, a shell), as
/// bash resolves it (runners, functions), or named to a run-time program (`$X git push`,
/// `"$(command -v gh)"`).
fn reached_writer(a: &Analysis<'_>, found: &[(usize, Opaque)]) -> Option<String> {
    if let Some(op) = a.ops().first() {
        return Some(op.label());
    }
    for unit in a.units {
        if let Some(w) = unit_writer(unit) {
            return Some(w);
        }
    }
    // `a=(git push origin main); "${a[@]}"`, `x="gh pr merge"; eval "$x $n"`: the words of the
    // code chosen at run time are in the command's text.
    if found
        .iter()
        .any(|(u, _)| mentions_git_or_gh(&a.units[*u].text))
    {
        return Some("git or gh named in its text".into());
    }
    for (u, o) in found {
        let view = a.units[*u].view();
        let inv = &view.invocations[o.invocation];
        if let Some(n) = inv
            .args
            .iter()
            .find_map(|x| named_writer(x.value.as_deref()))
        {
            return Some(n);
        }
        // `"$(command -v git)" push`: the looked-up name inside the program word.
        for look in &view.invocations {
            if look.context.command_subst > 0
                && look.name().is_some_and(|n| LOOKERS.contains(&n))
                && look.span.start >= inv.span.start
                && look.span.end <= inv.span.end
            {
                if let Some(n) = look
                    .args
                    .iter()
                    .find_map(|x| named_writer(x.value.as_deref()))
                {
                    return Some(n);
                }
            }
        }
    }
    None
}

fn named_writer(v: Option<&str>) -> Option<String> {
    let n = shell_syntax::view::normalise_program(v?);
    may_write(&n).then_some(n)
}

fn unit_writer(unit: &Unit) -> Option<String> {
    let view = unit.view();
    if let Some(n) = view
        .invocations
        .iter()
        .find_map(|i| i.name().filter(|n| may_write(n)))
    {
        return Some(n.to_string());
    }
    let arena = bumpalo::Bump::new();
    command_effects::functions::runs(view, &arena)
        .iter()
        .find_map(|r| match &r.program {
            Resolved::Program(n) if may_write(n) => Some(n.to_string()),
            _ => None,
        })
}
