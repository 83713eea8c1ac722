//! Test-only: the guards agree with one another (issue 19).
//!
//! Every deny or block reason a guard gives is collected by replaying the guards' own fixtures
//! (the reasons are kept as `safety_kernel::feedback::clip_reason` builds them, feature
//! `reason-capture`), so no hand-kept list can go stale. `tests/agreement.rs` then walks each
//! reason through the other guards: a final message that reports the refusal and leaves the step
//! to the maintainer must pass egress-audit when the refusal is recorded, and every command the
//! remedy tells the agent to run must pass gh-write-guard and model-tier-guard. This library holds
//! the pure parts of that walk.

use phrase_gate::RecordedRefusal;

/// A reason a guard gave while replaying one of its fixture cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenReason {
    pub binary: &'static str,
    /// The fixture case that produced it (for the failure message).
    pub case: String,
    pub text: String,
    /// The refused command, when the guard judged a Bash command.
    pub command: Option<String>,
}

impl GivenReason {
    /// The requirement id the reason starts with (`"G4: ..."` and `"G4.rule: ..."` give `G4`).
    pub fn requirement(&self) -> Option<&str> {
        requirement_of(&self.text)
    }

    /// The refusal as the guard's audit record states it (what egress-audit reads).
    pub fn as_recorded(&self) -> RecordedRefusal {
        RecordedRefusal {
            binary: self.binary.to_string(),
            requirement: self.requirement().map(str::to_string),
            command: self.command.clone(),
        }
    }
}

/// The requirement id a reason starts with: letters then digits before the first `:`, or
/// before the `.` of a sub-code (`G4.rule:` gives `G4`).
pub fn requirement_of(reason: &str) -> Option<&str> {
    code_of(reason).map(|code| code.split_once('.').map_or(code, |(id, _)| id))
}

/// The code a reason starts with: `G4` or a sub-code `G4.rule` (upper-case letters, digits, then
/// optionally `.` and a lower-case kebab name) before the first `:`.
pub fn code_of(reason: &str) -> Option<&str> {
    let (code, _) = reason.split_once(':')?;
    let (id, sub) = match code.split_once('.') {
        Some((id, sub)) => (id, Some(sub)),
        None => (code, None),
    };
    let letters = id.trim_end_matches(|c: char| c.is_ascii_digit());
    let id_ok = !letters.is_empty()
        && letters.len() < id.len()
        && letters.chars().all(|c| c.is_ascii_uppercase());
    let sub_ok = sub.is_none_or(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    });
    (id_ok && sub_ok).then_some(code)
}

/// The commands a reason tells the agent to run. A reason is `"<ID>: <refused>. <remedy>"`; only
/// the remedy is read (the refused part quotes the refused command). A command is a backtick-quoted
/// span, or a parenthesised one that reads as a command line: a lower-case program word, an
/// argument, no comma (`(git worktree add ../<name> -b <branch>)`, not `(haiku, sonnet, opus)`).
/// Placeholders such as `<branch>` are filled with a plain word so the command can be judged.
pub fn remedy_commands(reason: &str) -> Vec<String> {
    agent_clauses(remedy_of(reason))
        .flat_map(|clause| {
            let quoted = clause.split('`').skip(1).step_by(2);
            let parenthesised = clause
                .split('(')
                .skip(1)
                .filter_map(|s| s.split_once(')').map(|(inside, _)| inside))
                .filter(|s| reads_as_command(s));
            quoted.chain(parenthesised).collect::<Vec<_>>()
        })
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(fill_placeholders)
        .collect()
}

/// The clauses of a remedy addressed to the agent: a clause that names the maintainer ("the
/// maintainer can set ... `claude --model`") says what the maintainer may do, not the agent.
fn agent_clauses(remedy: &str) -> impl Iterator<Item = &str> {
    remedy
        .split(". ")
        .flat_map(|s| s.split("; "))
        .flat_map(|s| s.split(", or "))
        .filter(|clause| !clause.to_lowercase().contains("maintainer"))
}

/// The remedy sentence(s) of a reason: what follows the refused part.
pub fn remedy_of(reason: &str) -> &str {
    let body = match code_of(reason) {
        Some(code) => &reason[code.len() + 1..],
        None => reason,
    };
    body.split_once(". ").map_or("", |(_, remedy)| remedy)
}

fn reads_as_command(span: &str) -> bool {
    const PROSE: [&str; 8] = ["the", "a", "an", "or", "and", "it", "one", "on"];
    let words: Vec<&str> = span.split_whitespace().collect();
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    !span.contains(',')
        && program
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && args.iter().any(|a| a.starts_with('-') || a.contains('/'))
        && !args.iter().any(|a| PROSE.contains(a))
}

fn fill_placeholders(command: &str) -> String {
    let mut out = String::new();
    let mut rest = command;
    while let Some(open) = rest.find('<') {
        match rest[open..].find('>') {
            Some(close) => {
                out.push_str(&rest[..open]);
                out.push_str("agent-work");
                rest = &rest[open + close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// Final messages an agent would write after the refusal: each reports it and leaves the step to
/// the maintainer, in the words the reason gave it and in an agent's own.
pub fn reports_after(reason: &GivenReason) -> Vec<String> {
    let id = reason.requirement().unwrap_or(reason.binary);
    let mut out = vec![
        reason.text.clone(),
        format!(
            "I stopped here. {} I have left this step to the maintainer.",
            reason.text
        ),
    ];
    if reason.binary == "egress-audit" {
        // Its own reason, echoed: nothing was refused by another guard.
        return out;
    }
    out.extend([format!(
            "The {} hook refused this ({id}), so I did not retry it; you'll need to do it yourself if you want it done.",
            reason.binary
        )]);
    if let Some(command) = &reason.command {
        out.push(format!(
            "`{command}` was refused ({id}). Could you run it yourself once it is allowed?"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_ids_and_commands_are_read_from_a_reason() {
        assert_eq!(requirement_of("G4: refused. Do x."), Some("G4"));
        assert_eq!(requirement_of("E5: no"), Some("E5"));
        assert_eq!(requirement_of("Note: no id"), None);
        assert_eq!(requirement_of("G: no digits"), None);
        assert_eq!(requirement_of("G4.rule: refused. Do x."), Some("G4"));
        assert_eq!(
            code_of("M2.call-model: refused. Do x."),
            Some("M2.call-model")
        );
        assert_eq!(code_of("G4.: empty sub-code"), None);
        assert_eq!(code_of("G4.Rule: not kebab"), None);
        assert_eq!(
            remedy_of("I3.settings: refused. Ask the maintainer."),
            "Ask the maintainer."
        );
        assert_eq!(
            code_of("G4.fail-closed: refused. Do x."),
            Some("G4.fail-closed")
        );
        assert_eq!(requirement_of("G4.Rule: no"), None);
        assert_eq!(requirement_of("G4.: no"), None);
        assert_eq!(remedy_of("G4.rule: refused. Do x."), "Do x.");
        assert_eq!(
            remedy_commands("G4: `git push` refused. Push to `git push origin HEAD:<branch>` or open one (gh pr create --fill) (use 1, true or on)."),
            vec!["git push origin HEAD:agent-work", "gh pr create --fill"]
        );
        assert!(remedy_commands("no commands here").is_empty());
        assert_eq!(
            remedy_commands("M2: x. Use `opus`; the maintainer can set it: `claude --model`."),
            vec!["opus"]
        );
    }

    #[test]
    fn reports_name_the_refusal() {
        let r = GivenReason {
            binary: "gh-write-guard",
            case: "c".into(),
            text: "G4: refused.".into(),
            command: Some("git push".into()),
        };
        let reports = reports_after(&r);
        assert_eq!(reports.len(), 4);
        let refusal = r.as_recorded();
        let normalised: Vec<String> = reports
            .iter()
            .map(|t| phrase_gate::normalise(t).into_owned())
            .collect();
        assert!(normalised.iter().all(|t| refusal.is_named_in(t)));
    }
}
