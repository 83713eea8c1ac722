//! SessionEnd: the time signal (I1), the session's score (I4) and its report (I6).

use super::{now_secs, now_text, Deps, Verdict};
use crate::i1_signals;
use crate::i4_scoring;
use crate::i5_modes::Mode;
use crate::i6_report;
use crate::signal::Signal;
use crate::store::Store;
use hook_io::{Answer, HookInput};
use serde_json::json;

/// A session's score and its report, not yet written.
pub struct ScoredReport {
    /// The score.
    pub score: i4_scoring::Score,
    /// The one-paragraph summary.
    pub text: String,
    /// The report file's body.
    pub body: String,
}

/// Scores a session's recorded signals plus `extra` (signals of this hook, whose own append may
/// not have landed yet: the answer comes first).
pub fn score_report(
    store: &Store,
    session: Option<&str>,
    mode: Mode,
    extra: &[Signal],
) -> Result<ScoredReport, String> {
    let (mut signals, unreadable) = store.signals(session)?;
    signals.extend(extra.iter().cloned());
    let audit = store
        .session(session)
        .audit()
        .read_all()
        .map(|(records, _)| records)
        .unwrap_or_default();
    crate::outcomes::Outcomes::from_audit(&audit).resolve(&mut signals);
    let mut score = i4_scoring::score(&signals);
    score.rejected.extend(
        unreadable
            .into_iter()
            .map(|reason| i4_scoring::RejectedSignal {
                kind: "unknown".into(),
                reason,
            }),
    );
    let report = i6_report::report_json(session, &score, &now_text(), mode.as_str());
    let text = i6_report::summary(session, &score);
    let body = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    Ok(ScoredReport { score, text, body })
}

/// Scores a session's recorded signals (plus `extra`) and writes its report.
pub fn write_report(
    store: &Store,
    session: Option<&str>,
    mode: Mode,
    extra: &[Signal],
) -> Result<(i4_scoring::Score, String), String> {
    let r = score_report(store, session, mode, extra)?;
    store.write_report(session, &r.body, &r.text)?;
    Ok((r.score, r.text))
}

pub(super) fn session_end(input: &HookInput, deps: &Deps) -> Verdict {
    let session = input.session_id.as_deref();
    let Ok(store) = &deps.store else {
        return Verdict {
            answer: Answer::Report {
                text: "integrity-signals: no state dir; no report written".into(),
            },
            signals: Vec::new(),
            audit: json!({"decision": "no_report"}),
        };
    };
    let mut signals = Vec::new();
    let started = store.started_at(session);
    if let Some(start) = started {
        // The log keeps milliseconds: a session shorter than the rounding is not negative.
        signals.extend(i1_signals::time_signal(
            (now_secs() - start).max(0.0),
            deps.config.integrity_reference_secs,
            &now_text(),
        ));
    }
    // Scored with this hook's own signals, whose append comes after the answer.
    let recorded = store.append_signals(session, &signals);
    let scored = match score_report(store, session, deps.mode, &signals) {
        Ok(r) => r,
        Err(e) => {
            return Verdict {
                answer: Answer::Report {
                    text: format!("integrity-signals: the session could not be scored: {e}"),
                },
                signals: Vec::new(),
                audit: json!({"requirement": "I6", "decision": "no_report", "error": e}),
            }
        }
    };
    // The outcome is said even when the report file cannot be written (issue 47).
    let written = store
        .write_report(session, &scored.body, &scored.text)
        .and(recorded);
    let clean =
        scored.score.outcome == i4_scoring::Outcome::Clean && scored.score.rejected.is_empty();
    let answer = match (&written, clean) {
        (Ok(_), true) => Answer::Silent,
        (Ok(_), false) => Answer::Report {
            text: scored.text.clone(),
        },
        (Err(e), _) => Answer::Report {
            text: format!(
                "{} (integrity-signals: report not written: {e})",
                scored.text
            ),
        },
    };
    Verdict {
        answer,
        signals: Vec::new(),
        audit: json!({"requirement": "I6", "decision": if written.is_ok() { "report" } else { "no_report" },
            "outcome": scored.score.outcome.as_str(), "net": scored.score.net,
            "error": written.err()}),
    }
}
