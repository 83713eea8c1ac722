// The egress gate's shipped phrase tables, as data only: included by `egress_tables.rs` (the
// gate) and by `build.rs`, which compiles them into the automaton the hook scans with, so the
// two can never list different phrases.

/// Family ids, as the maintainer names them in `egress_extra_phrases`.
pub const PERMISSION_GATE: &str = "permission_gate";
pub const LEGITIMATE_BLOCKER: &str = "legitimate_blocker";
pub const SELF_ERROR: &str = "self_error";
pub const DURABLE_BINDING: &str = "durable_binding";
pub const COMMAND_DISPLACEMENT: &str = "command_displacement";
pub const EXECUTION_RECEIPT: &str = "execution_receipt";
/// A command or operation handed to the reader (found by [`crate::reader_address`], or by the
/// maintainer's phrases). Only a named blocker excuses it: a receipt word such as "passed"
/// elsewhere in the text says nothing about the handed-back command.
pub const HAND_BACK: &str = "hand_back";
/// Issue 43: a hand-back or permission ask read from a sentence's structure with no blocker named
/// in that sentence or the one before or after it. A blocker word far away in a long report ("the
/// pipeline was down" three paragraphs up) says nothing about this request, so only a recorded
/// refusal excuses these. Filled by the gate, never by a table.
pub const HAND_BACK_UNEXCUSED: &str = "hand_back_without_blocker";
pub const PERMISSION_ASK_UNEXCUSED: &str = "permission_ask_without_blocker";


const BASELINE_PERMISSION_GATE: &[&str] = &[
    "authorize the next wave",
    "authorize next wave",
    "redirect or proceed",
    "want me to continue",
    "ready to commit",
    "should i proceed",
    "let me know if you want",
    "shall i continue",
    "permission to continue",
    "ok to proceed",
];

const BASELINE_LEGITIMATE_BLOCKER: &[&str] = &[
    "destructive",
    "irreversible",
    "secret",
    "credential",
    "publication boundary",
    "public sharing boundary",
    "remote push",
    "concurrent-owner conflict",
    "concurrent owner conflict",
    "validation failure",
    "owner unclear",
    "blast-radius",
    "blast radius",
    "private disclosure",
    "explicit no-commit",
];

const BASELINE_SELF_ERROR: &[&str] = &[
    "i was wrong",
    "my mistake",
    "i miscounted",
    "i fabricated",
    "i claimed incorrectly",
    "i should not have",
];

const BASELINE_DURABLE_BINDING: &[&str] = &[
    "cap_",
    "workitem",
    "work item",
    "task ledger",
    "quick-capture",
    "captured",
    "failure mode",
    "work log",
];

const BASELINE_COMMAND_DISPLACEMENT: &[&str] = &[
    "you can run",
    "run this command",
    "try running",
    "next command for you",
];

const BASELINE_EXECUTION_RECEIPT: &[&str] = &[
    "i ran",
    "ran:",
    "exit code",
    "passed",
    "failed",
    "command output",
];

/// Real blockers beyond the baseline's words (issue 43): what the agent lacks (a credential, access,
/// the network), what refused it, what cannot be undone, and decisions that are not the agent's.
const WIDER_LEGITIMATE_BLOCKER: &[&str] = &[
    "token",
    "2fa",
    "one-time code",
    "password",
    "api key",
    "signing key",
    "deploy key",
    "your login",
    "apple id",
    "permission denied",
    "access denied",
    "have access to the",
    "access to your",
    "access to the account",
    "write access",
    "read-only",
    // Not "refused", "rejected" or "branch protection": a guard's refusal (G4 is branch rules)
    // excuses only when the session recorded it (E5), never on the message's word.
    "forbidden",
    "unauthorized",
    "code owner",
    "no network",
    "network access",
    "outside this sandbox",
    // egress-43d: "the production VPN, which this sandbox can't reach" was blocked.
    "sandbox can't",
    "sandbox cannot",
    "can't reach",
    "cannot reach",
    "is down",
    "rate limit",
    "physical",
    "on site",
    "cannot be undone",
    "can't be undone",
    "bad data",
    "data loss",
    "costs money",
    "billing",
    "your card",
    "customer data",
    "disclose",
    "every tenant",
    "all customers",
    "off-limits",
    "not allowed",
    "business decision",
    "copyright",
    "i can't",
    "i cannot",
    "i could not",
    "i couldn't",
    "unable to",
    "which i don't have",
    "which i do not have",
    "that i don't have",
    "i don't have the",
    "i don't have your",
    "i do not have the",
    "not available to me",
    "only you",
    "needs your",
    "requires your",
    "validation failed",
];

/// Admissions of a mistake beyond the baseline's (issue 43).
const WIDER_SELF_ERROR: &[&str] = &[
    "i made a mistake",
    "i made an error",
    "my bad",
    "my error",
    "i messed up",
    "i was mistaken",
    "i misread",
    "i misreported",
    "i misstated",
    "i overlooked",
    "i broke ",
    "i accidentally",
    "i incorrectly",
    "i wrongly",
    "i mistakenly",
    "i should have ",
    "i forgot to",
    "i introduced a bug",
    "i introduced a regression",
    "to the wrong branch",
    "was wrong",
    "i got the",
    ". oops",
    ". whoops",
    ". sorry, i",
    ". apologies, i",
    ". my apologies, i",
    ". i'm sorry, i",
    "i misconfigured",
    "my change broke",
    "my earlier change broke",
    "my last change broke",
    "my commit broke",
    "my fix broke",
];

/// Receipts beyond the baseline's (issue 43): the agent says it used what it offers ("you can now
/// deploy with `make ship`, which I used for this release" reports a capability, not a chore).
/// "… and ran it myself" (egress-43d: an offer beside it was blocked).
const WIDER_EXECUTION_RECEIPT: &[&str] = &[
    "which i used",
    "i used it to",
    "i used it for",
    "ran it myself",
    "ran them myself",
    "which i ran",
];
/// Durable captures beyond the baseline's (issue 43): a record someone can find again.
const WIDER_DURABLE_BINDING: &[&str] = &[
    "recorded",
    "logged as",
    "filed",
    "ticket",
    "postmortem",
    "incidents",
    "lessons",
    "regression test",
    "noted in",
    "tracked in",
];

/// Each family the gate ships with: its id, the baseline's phrases (the prior art) and the
/// phrases added beyond it.
const FAMILY_TABLES: &[(&str, &[&str], &[&str])] = &[
    // Issue 43: the go-ahead questions beyond the baseline are read from the sentence's
    // structure (`reader_address`), not listed; the family keeps the baseline's phrases and the
    // maintainer's.
    (PERMISSION_GATE, BASELINE_PERMISSION_GATE, &[]),
    (
        LEGITIMATE_BLOCKER,
        BASELINE_LEGITIMATE_BLOCKER,
        WIDER_LEGITIMATE_BLOCKER,
    ),
    (SELF_ERROR, BASELINE_SELF_ERROR, WIDER_SELF_ERROR),
    (
        DURABLE_BINDING,
        BASELINE_DURABLE_BINDING,
        WIDER_DURABLE_BINDING,
    ),
    (COMMAND_DISPLACEMENT, BASELINE_COMMAND_DISPLACEMENT, &[]),
    (
        EXECUTION_RECEIPT,
        BASELINE_EXECUTION_RECEIPT,
        WIDER_EXECUTION_RECEIPT,
    ),
    // Issue 43: hand-backs are read from the sentence's structure (`reader_address`); the family
    // holds the maintainer's phrases only.
    (HAND_BACK, &[], &[]),
    (HAND_BACK_UNEXCUSED, &[], &[]),
    (PERMISSION_ASK_UNEXCUSED, &[], &[]),
];
