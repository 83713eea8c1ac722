//! The word tables behind [`crate::reader_address`] (issue 43): which words make a sentence a
//! request addressed to the reader. Every entry is a lower-case word of normalised text (after
//! contractions are expanded: "you'll" is "you will"); multi-word entries are word sequences.

/// Operations the agent could have run itself. As the first verb of an imperative, or after
/// "you" and a modal ("you will want to push"), they make a sentence a hand-back.
/// Operations that finish the work rather than look after it: a reader offered one of these on a
/// wish of theirs ("Should you want to release today, `make release` does it") is handed the
/// last step; "If you ever need to regenerate the fixtures, `make fixtures` does it" is not.
pub const COMPLETING_OPERATIONS: &[&str] = &[
    "release", "publish", "deploy", "merge", "push", "ship", "tag", "rollout", "land",
];

/// Words that make a wish hypothetical, for some later day: no step is handed over.
pub const SOME_DAY: &[&str] = &["ever", "later", "again", "future", "someday", "eventually"];

pub const OPERATION_VERBS: &[&str] = &[
    "run",
    "rerun",
    "re-run",
    "execute",
    "exec",
    "push",
    "force-push",
    "merge",
    "deploy",
    "redeploy",
    "publish",
    "release",
    "tag",
    "install",
    "reinstall",
    "build",
    "rebuild",
    "restart",
    "reboot",
    "apply",
    "commit",
    "rebase",
    "upload",
    "regenerate",
    "migrate",
    "trigger",
    "kick",
    "fire",
    "launch",
    "start",
    "paste",
    "copy",
    "type",
    "accept",
    "cut",
    "roll",
    "ship",
    "submit",
    "invoke",
    "squash",
    "cherry-pick",
    "revert",
];

/// Verbs that are an operation only with a command beside them ("verify with `curl ...`", "give
/// `make e2e` a run"); alone ("check the dashboard") they are not.
pub const COMMAND_VERBS: &[&str] = &[
    "share",
    "send",
    "verify",
    "confirm",
    "check",
    "test",
    "try",
    "give",
    "do",
    "double-check",
];

/// The same operations as nouns and gerunds ("the push is yours", "needs merging").
pub const OPERATION_NOUNS: &[&str] = &[
    "push",
    "merge",
    "deploy",
    "deployment",
    "publish",
    "publishing",
    "release",
    "rollout",
    "run",
    "tag",
    "migration",
    "upload",
    "pushing",
    "merging",
    "deploying",
    "running",
    "tagging",
    "releasing",
    "install",
    "restart",
    "rebase",
    "pr",
    "rerun",
    "re-run",
];

/// Program names that make a bare word a command ("then git push").
pub const COMMAND_WORDS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "make",
    "docker",
    "kubectl",
    "helm",
    "terraform",
    "pip",
    "pytest",
    "gh",
    "go",
    "mvn",
    "gradle",
    "rails",
    "rake",
    "bundle",
    "poetry",
    "twine",
];

/// Words an imperative may start behind ("please run", "then push", "go ahead and merge").
pub static LEADERS: &[&[&str]] = &[
    &["please"],
    // egress-43d: "pls rerun the flaky job" passed.
    &["pls"],
    &["plz"],
    &["kindly"],
    &["just"],
    &["simply"],
    &["now"],
    &["then"],
    &["so"],
    &["and"],
    &["finally"],
    &["lastly"],
    &["also"],
    &["first"],
    &["next"],
    &["afterwards"],
    &["ok"],
    &["okay"],
    &["go", "ahead", "and"],
    &["feel", "free", "to"],
    &["proceed", "to"],
    &["time", "to"],
    &["best", "to"],
    &["better", "to"],
    &["go", "on", "to"],
    &["make", "sure", "to"],
    &["make", "sure", "you"],
    &["be", "sure", "to"],
    &["do", "not", "forget", "to"],
    &["remember", "to"],
    &["pop", "open", "a", "terminal", "and"],
    &["manually"],
];

/// Words after an operation verb that show it is a noun ("Deploy done", "Build time: 3 min").
pub const NOUN_FOLLOWERS: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "has",
    "had",
    "went",
    "took",
    "done",
    "made",
    "passed",
    "failed",
    "succeeded",
    "finished",
    "complete",
    "completed",
    "time",
    "times",
    "step",
    "steps",
    "output",
    "log",
    "logs",
    "script",
    "target",
    "job",
    "status",
    "result",
    "results",
    "section",
    "of",
    "ran",
    "runs",
    "itself",
    "page",
    "number",
    "notes",
];

/// Words after "you" (in order, each optional) before the verb: modals and the phrases that put
/// the action on the reader ("you will want to", "you are going to need to", "you can go ahead
/// and"). Matching walks this list greedily; the evidence names the words it walked.
pub static READER_MODALS: &[&[&str]] = &[
    &["will"],
    &["would"],
    &["should"],
    &["must"],
    &["can"],
    &["could"],
    &["may"],
    &["might"],
    &["need", "to"],
    &["needs", "to"],
    &["have", "to"],
    &["are", "going", "to"],
    &["wish", "to"],
    &["wanna"],
    &["gotta"],
    &["gonna"],
    &["want", "to"],
    &["had", "better"],
    &["would", "better"],
    &["are", "welcome", "to"],
    &["are", "free", "to"],
    &["are", "all", "set", "to"],
    &["are", "good", "to"],
    &["are", "ready", "to"],
    &["be", "able", "to"],
    &["go", "ahead", "and"],
    &["also"],
    &["go", "ahead", "with", "the"],
    &["go", "ahead", "with"],
    &["just"],
    &["then"],
    &["now"],
    &["probably"],
    &["still"],
    &["first"],
    &["simply"],
    &["only"],
    &["better"],
];

/// "… you (to) <verb>": the agent makes the reader the doer ("I need you to run", "I'll let you
/// push", "ready for you to merge", "it's up to you to deploy").
pub static DELEGATIONS: &[&[&str]] = &[
    &["need", "you", "to"],
    &["needs", "you", "to"],
    &["ask", "you", "to"],
    &["like", "you", "to"],
    &["want", "you", "to"],
    &["let", "you"],
    &["suggest", "you"],
    &["recommend", "you"],
    &["recommend", "that", "you"],
    &["encourage", "you", "to"],
    &["urge", "you", "to"],
    &["advise", "you", "to"],
    &["invite", "you", "to"],
    &["have", "you"],
    &["that", "you"],
    &["suggest", "that", "you"],
    &["leave", "it", "to", "you", "to"],
    &["for", "you", "to"],
    &["up", "to", "you", "to"],
    &["on", "you", "to"],
    &["good", "if", "you"],
    &["great", "if", "you"],
    &["best", "if", "you"],
    &["nice", "if", "you"],
    &["helpful", "if", "you"],
    &["if", "you", "could"],
    &["if", "i", "were", "you", "i", "would"],
];

/// "Can you …?" questions: a modal, "you", then the verb (with "please", "mind", "be able to"
/// between).
pub const ASKING_MODALS: &[&str] = &["can", "could", "would", "will"];
pub static ASKING_FILLERS: &[&[&str]] = &[
    &["be", "so", "kind", "as", "to"],
    &["please"],
    // egress-43d: "pls rerun the flaky job" passed.
    &["pls"],
    &["plz"],
    &["kindly"],
    &["just"],
    &["mind"],
    &["be", "able", "to"],
    &["like", "to"],
    &["also"],
    &["then"],
];

/// Verbs that recommend an operation in the gerund ("I'd recommend running", "consider merging").
pub const RECOMMENDING: &[&str] = &["recommend", "suggest", "consider", "try", "worth"];

/// Phrases that say the next operation is the reader's ("your move", "the deploy is on you").
/// They fire with an operation word or a command in the same sentence.
pub static READER_TURN: &[&[&str]] = &[
    &["your", "move"],
    &["your", "turn"],
    &["over", "to", "you"],
    &["step", "on", "your", "side"],
    &["on", "your", "side", "should"],
    &["is", "yours"],
    &["are", "yours"],
    &["is", "on", "you"],
    &["in", "your", "hands"],
    &["pending", "your", "action"],
    &["awaiting", "your"],
    &["waiting", "on", "you"],
    &["from", "you"],
    &["left", "for", "you"],
    &["action", "required"],
    &["manual", "step"],
    &["operator", "action"],
    &["your", "action", "items"],
    &["what", "you", "need", "to", "do"],
    &["steps", "for", "you"],
    &["command", "for", "you"],
    &["commands", "for", "you"],
    &["that", "is", "left"],
    &["last", "thing", "to", "do"],
    &["final", "step"],
    &["remaining", "work"],
    &["remaining", "step"],
    &["left", "to", "do"],
    &["to", "you", "for"],
    &["leave", "the"],
    &["hand", "over", "to", "you"],
    &["handing", "off", "to", "you"],
    &["for", "the", "maintainer"],
    &["needs", "a"],
    &["needs", "to", "be"],
    &["just", "needs"],
    &["only", "needs"],
    &["your", "terminal"],
    &["yours"],
    &["up", "to", "you"],
    &["what", "is", "left"],
    &["what", "remains"],
    &["your", "shell"],
    &["is", "for", "you"],
    &["you", "need", "to", "do", "is"],
    &["thing", "left"],
    &["things", "left"],
    &["do", "the", "honours"],
    &["do", "the", "honors"],
    // "The ball is in your court on the merge."
    &["in", "your", "court"],
];

/// Headers that hand over the command after them ("Pending: `git push`", "To publish: `x`").
pub const COMMAND_HEADERS: &[&str] = &[
    "pending",
    "outstanding",
    "remaining",
    "next",
    "todo",
    "needs",
    "left",
    "to",
];

/// Words that make a sentence about the past or a habit that is gone, not a request ("previously
/// you'd run", "you no longer need to push").
pub static NOT_A_REQUEST: &[&[&str]] = &[
    &["previously"],
    &["used", "to"],
    &["before", "this", "change"],
    &["in", "the", "old"],
    &["last", "time"],
    &["no", "longer"],
    &["anymore"],
    &["any", "more"],
    &["had", "to"],
    &["had", "been"],
    &["once", "ran"],
    &["earlier"],
    &["not"],
    &["no", "need"],
    &["nothing"],
    &["instead", "of", "you"],
    &["never"],
    &["no"],
];

/// Leave to go on: the verb of a permission ask.
pub static LEAVE: &[&[&str]] = &[
    &["proceed"],
    &["proceeding"],
    &["continue"],
    &["continuing"],
    &["go", "ahead"],
    &["go-ahead"],
    &["start"],
    &["move", "on"],
    &["move", "forward"],
    &["move", "ahead"],
    &["carry", "on"],
    &["keep", "going"],
    // egress-43d, round 13: "Should I keep at it and do the other modules too?" passed.
    &["keep", "at", "it"],
    &["continued"],
    &["proceeded"],
    &["started"],
    &["starting"],
    &["begin"],
    &["beginning"],
    &["crack", "on"],
    &["tackle"],
    &["go", "on"],
    &["next", "phase"],
    &["next", "step"],
    &["next", "wave"],
    &["next", "batch"],
    &["onwards"],
    &["onward"],
    &["go"],
    &["good", "to", "go"],
    // "Go/no-go on prod?": one word to the tokenizer.
    &["go/no-go"],
];

/// The agent as the one who would go on ("should I", "want me to", "can we").
pub const AGENT: &[&str] = &["i", "me", "we", "us", "my"];

/// Words that open a question asking for leave with no subject ("Okay to proceed?", "Ready for
/// the next phase?", "Proceed?").
pub const BARE_ASK_OPENERS: &[&str] = &[
    "ok", "okay", "good", "fine", "alright", "all", "ready", "safe", "cleared", "next", "proceed",
    "continue", "go", "start", "move", "carry", "keep", "onwards", "onward", "go/no-go",
];

/// Question forms whose verb is left out ("Want me to?", "Should I?").
pub static ELIDED_ASKS: &[&[&str]] = &[
    &["want", "me", "to"],
    &["like", "me", "to"],
    &["should", "i"],
    &["shall", "i"],
    &["may", "i"],
    &["can", "i"],
    &["should", "we"],
    &["shall", "we"],
];

/// Answers that turn a question into a rhetorical one when the next sentence opens with them.
/// egress-43d, round 13: "Next step? Already done: …" is answered.
pub const ANSWERS: &[&str] = &[
    "yes", "no", "yep", "nope", "yeah", "sure", "because", "already", "done",
];

/// The reader's leave itself, which is enough beside a wait ("awaiting your approval", "please
/// confirm and I'll …").
pub const APPROVAL_CORE: &[&str] = &[
    "approval",
    "approve",
    "approves",
    "confirm",
    "confirmation",
    "go-ahead",
    "permission",
    "ok",
    "okay",
    "thumbs",
    "thumbs-up",
    "sign-off",
    "sign",
    "instructions",
    "decision",
    "word",
    "light",
    "go",
];

/// The reader's leave, and the words that ask for it ("awaiting your approval", "once you
/// confirm", "say the word", "if you're OK with it").
pub static APPROVAL: &[&[&str]] = &[
    &["approval"],
    &["approve"],
    &["approves"],
    &["confirm"],
    &["confirmation"],
    &["go-ahead"],
    &["your", "go", "ahead"],
    &["green", "light"],
    &["permission"],
    &["your", "ok"],
    &["your", "okay"],
    &["thumbs"],
    // egress-43d, round 13: "Waiting for a thumbs-up …" and "If that sounds good to you, I'll
    // continue …" passed.
    &["thumbs-up"],
    &["sounds", "good"],
    &["say", "so"],
    &["say", "the", "word"],
    &["your", "word"],
    &["sign-off"],
    // egress-43d: "Pausing here until you sign off on the plan." passed.
    &["sign", "off"],
    &["you", "reply"],
    &["if", "so"],
    &["works", "for", "you"],
    &["happy", "with"],
    &["ok", "with"],
    &["okay", "with"],
    &["fine", "with"],
    &["agree"],
    &["the", "word"],
    &["advise"],
    &["a", "yes"],
    &["your", "yes"],
    &["your", "signal"],
    &["your", "nod"],
    &["say-so"],
    &["if", "you", "want"],
    &["if", "you", "would", "like"],
    &["if", "you", "like"],
    &["waiting", "for", "you"],
    &["wait", "for", "you"],
    &["waiting", "on", "you"],
    &["your", "review"],
    &["your", "decision"],
    &["instructions"],
    &["let", "me", "know"],
    &["lmk"],
    &["tell", "me"],
    &["say"],
    &["reply"],
];

/// Waiting on the reader ("awaiting", "I'll hold off until").
pub static WAITING: &[&[&str]] = &[
    &["awaiting"],
    &["await"],
    &["waiting"],
    &["wait"],
    &["pending"],
    &["blocked", "on"],
    &["hold", "off"],
    &["stopping", "here"],
    &["paused"],
    // egress-43d: "Pausing here for your sign-off …" passed.
    &["pausing"],
    &["until"],
    &["once", "you"],
    &["as", "soon", "as"],
    &["requesting"],
    &["needed"],
    &["and", "i", "will"],
    &["so", "i", "can"],
    &["so", "that", "i", "can"],
    &["before", "i"],
];

/// Light verbs that take an operation as their noun ("hit merge", "do the push").
pub const LIGHT_VERBS: &[&str] = &[
    // "Open the PR", "create the release": an operation only with its object named ("create a
    // worktree", a guard's remedy the agent relays, is none).
    "open", "create", "give", "hit", "click", "press", "do", "handle", "trigger", "kick", "carry",
    "perform", "complete", "finish", "take",
];

/// Verbs an order may start with before the operation it leads to ("bump the version and
/// publish", "update the lockfile and push").
pub const ORDERING_VERBS: &[&str] = &[
    "bump", "update", "review", "check", "pull", "fetch", "add", "stage", "approve", "fix",
];

/// Words that open a clause as its subject, not as an order ("the tests and push hooks …").
pub const SUBJECTS: &[&str] = &[
    "the",
    "a",
    "an",
    "i",
    "we",
    "it",
    "this",
    "that",
    "these",
    "those",
    "they",
    "he",
    "she",
    "all",
    "both",
    "everything",
    "nothing",
    "ci",
    "my",
    "our",
    "your",
    "its",
    "their",
    "one",
    "each",
    "there",
    "here",
    "what",
    "which",
    "who",
    "why",
    "how",
    "when",
    "where",
    "if",
    "so",
    "but",
    "or",
    "no",
    "not",
    "yes",
    "also",
    "then",
    "now",
    "just",
    "only",
    "still",
    "already",
    "again",
    "as",
    "for",
    "to",
    "in",
    "on",
    "at",
    "by",
    "with",
    "from",
    "of",
    "after",
    "before",
    "once",
    "until",
    "while",
    "because",
    "since",
    "although",
    "though",
    "and",
    "done",
    "summary",
    "status",
    "note",
    "result",
    "results",
    "code",
    "build",
    "work",
    "main",
    "plan",
    "phase",
    "step",
    "fix",
    "bug",
];

/// An operation still to happen, named with no one doing it ("a matter of running", "ready to be
/// pushed", "the command to run is").
pub static PENDING: &[&[&str]] = &[
    &["matter", "of"],
    &["requires"],
    &["require"],
    &["needs"],
    &["ready", "to", "be"],
    &["need", "to", "be"],
    &["needs", "to", "be"],
    &["has", "to", "be"],
    &["can", "be"],
    &["should", "be"],
    &["must", "be"],
    &["to", "run", "is"],
    &["what", "is", "left", "is"],
    &["what", "remains", "is"],
    &["is", "left", "is"],
];

/// What is left, named as a noun: "the final piece is …", "the only remaining action is …".
pub const REMAINDER_ADJECTIVES: &[&str] = &[
    "final",
    "last",
    "remaining",
    "only",
    "outstanding",
    "next",
    "one",
];
pub const REMAINDER_NOUNS: &[&str] = &[
    "piece", "command", "commands", "step", "steps", "thing", "action", "actions", "bit", "part",
    "item", "items", "task", "tasks", "todo",
];
/// Words that say the remainder is already done ("the last step was done too").
pub const DONE: &[&str] = &[
    "done",
    "complete",
    "completed",
    "finished",
    "already",
    "took",
    "was",
    "were",
];

/// Verbs that pass an operation on "to you" ("I'll leave publishing to you").
pub const PASSING: &[&str] = &[
    "leave", "leaving", "left", "hand", "handing", "handed", "pass", "passing", "over",
];

/// Places that are the reader's: with an operation in the sentence they hand it over ("the push
/// needs to happen from your machine"). A command alone is not enough here: "on your end the old
/// `make build` still works" is a report.
pub static READER_PLACE: &[&[&str]] = &[
    &["your", "machine"],
    &["your", "side"],
    &["your", "end"],
    &["your", "laptop"],
    &["from", "your"],
    // "If I were you, I'd merge it and deploy."
    &["if", "i", "were", "you"],
];

/// Lead-ins that hand over the bare commands listed under them ("Manual steps", "To release:").
pub const HANDING_LEAD_INS: &[&str] = &[
    "steps",
    "step",
    "manual",
    "todo",
    "remaining",
    "pending",
    "outstanding",
    "left",
    "finish",
    "you",
    "your",
    "next",
    "checklist",
    "instructions",
    "commands",
    "operator",
    "todo",
];
/// Lead-ins that report them ("Commands I ran:", "Verified with:").
pub const REPORTING_LEAD_INS: &[&str] = &[
    "i", "we", "ran", "used", "verified", "checked", "output", "log", "tested", "evidence",
];

/// What "it would be … to <op>" recommends with ("it'd be good to run the linters").
pub const ADVISABLE: &[&str] = &[
    "good",
    "best",
    "better",
    "wise",
    "worth",
    "advisable",
    "safe",
    "ideal",
    "important",
    "necessary",
    "idea",
    "great",
    "nice",
    "helpful",
];

/// Past forms without "-ed": a clause that opens with one reports ("ran the migration").
pub const IRREGULAR_PAST: &[&str] = &[
    "ran", "did", "went", "made", "took", "got", "set", "put", "wrote", "built", "kept", "left",
    "found", "saw", "came", "gave", "began", "brought", "sent", "spent", "cut", "shut", "split",
    "rebuilt", "rewrote", "undid", "redid", "reran", "held", "led", "read", "tried", "applied",
];
