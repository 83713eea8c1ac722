//! K1: composition of dispositions.
//!
//! Several rules (or several binaries) may each have an opinion about one action. The fold below is
//! the only way to combine them, and it is monotone: adding an input never loosens the result.

use serde::{Deserialize, Serialize};

/// Ranked labels, lowest first. The derived order is the rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// The action goes ahead.
    Allow,
    /// The action goes ahead in a weaker form (a lower tier, a safer path).
    Fallback,
    /// The action waits for a check (a run, a human).
    Verify,
    /// The action is stopped.
    Halt,
    /// The action is stopped because the session is tainted.
    HaltTainted,
}

impl Label {
    /// Whether the label stops the action.
    pub fn is_halt(self) -> bool {
        matches!(self, Label::Halt | Label::HaltTainted)
    }
}

/// One verdict with its consequences. Fields are private so a disposition cannot be loosened after
/// it was made; build one with the constructors and combine with [`compose`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disposition {
    label: Label,
    tainted: bool,
    can_escalate: bool,
    can_write_memory: bool,
    read_only: bool,
    confined: bool,
    /// Granular reasons, for the audit log only.
    reasons: Vec<String>,
}

/// Declares the builder methods that each set one restriction flag and return the verdict, so
/// the pattern is written once.
macro_rules! restrictions {
    ($($(#[$doc:meta])* $method:ident => $field:ident = $value:literal;)*) => {
        $(
            $(#[$doc])*
            pub fn $method(mut self) -> Disposition {
                self.$field = $value;
                self
            }
        )*
    };
}

impl Disposition {
    /// A plain verdict with the most permissive consequences its label allows.
    pub fn new(label: Label) -> Disposition {
        Disposition {
            label,
            tainted: false,
            can_escalate: true,
            can_write_memory: true,
            read_only: false,
            confined: false,
            reasons: Vec::new(),
        }
        .normalised()
    }

    /// `allow`, nothing restricted.
    pub fn allow() -> Disposition {
        Disposition::new(Label::Allow)
    }

    /// `halt`, with its reason.
    pub fn halt(reason: impl Into<String>) -> Disposition {
        Disposition::new(Label::Halt).with_reason(reason)
    }

    /// Adds a reason (for the audit log).
    pub fn with_reason(mut self, reason: impl Into<String>) -> Disposition {
        self.reasons.push(reason.into());
        self
    }

    /// Marks the verdict tainted (which halts it).
    pub fn tainted(mut self) -> Disposition {
        self.tainted = true;
        self.normalised()
    }

    restrictions! {
        /// Forbids escalation (a higher tier, wider permissions).
        no_escalate => can_escalate = false;
        /// Forbids writes to durable memory.
        no_memory_writes => can_write_memory = false;
        /// Allows reads only.
        read_only => read_only = true;
        /// Confines the action (ceilings, no network).
        confined => confined = true;
    }

    /// Applies the invariants: a tainted verdict without a halt becomes `halt_tainted`; halted or
    /// tainted verdicts can neither escalate nor write memory, and are read-only.
    fn normalised(mut self) -> Disposition {
        if self.tainted && !self.label.is_halt() {
            self.label = Label::HaltTainted;
        }
        if self.tainted || self.label.is_halt() {
            self.can_escalate = false;
            self.can_write_memory = false;
            self.read_only = true;
        }
        self
    }

    /// The ranked label.
    pub fn label(&self) -> Label {
        self.label
    }
    /// Whether the verdict is tainted.
    pub fn is_tainted(&self) -> bool {
        self.tainted
    }
    /// Whether escalation stays allowed.
    pub fn can_escalate(&self) -> bool {
        self.can_escalate
    }
    /// Whether durable-memory writes stay allowed.
    pub fn can_write_memory(&self) -> bool {
        self.can_write_memory
    }
    /// Whether only reads are allowed.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }
    /// Whether the action is confined.
    pub fn is_confined(&self) -> bool {
        self.confined
    }
    /// The reasons given, for the audit log.
    pub fn reasons(&self) -> &[String] {
        &self.reasons
    }
}

/// Folds dispositions in the fixed K1 order. An empty fold is `allow`.
pub fn compose(inputs: &[Disposition]) -> Disposition {
    // (1) taint first: a monotone OR over every input.
    let tainted = inputs.iter().any(|d| d.tainted);
    // (2) the highest-ranked label present.
    let label = inputs.iter().map(|d| d.label).max().unwrap_or(Label::Allow);
    // (4) AND for the permissions, OR for the restrictions.
    let out = Disposition {
        label,
        tainted,
        can_escalate: inputs.iter().all(|d| d.can_escalate),
        can_write_memory: inputs.iter().all(|d| d.can_write_memory),
        read_only: inputs.iter().any(|d| d.read_only),
        confined: inputs.iter().any(|d| d.confined),
        reasons: inputs
            .iter()
            .flat_map(|d| d.reasons.iter().cloned())
            .collect(),
    };
    // (2, 3) halt_tainted and the halt/taint invariants.
    out.normalised()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_label() -> impl Strategy<Value = Label> {
        prop_oneof![
            Just(Label::Allow),
            Just(Label::Fallback),
            Just(Label::Verify),
            Just(Label::Halt),
            Just(Label::HaltTainted),
        ]
    }

    fn arb_disposition() -> impl Strategy<Value = Disposition> {
        (arb_label(), any::<[bool; 5]>()).prop_map(|(label, f)| {
            let mut d = Disposition::new(label);
            if f[0] {
                d = d.tainted();
            }
            if f[1] {
                d = d.no_escalate();
            }
            if f[2] {
                d = d.no_memory_writes();
            }
            if f[3] {
                d = d.read_only();
            }
            if f[4] {
                d = d.confined();
            }
            d
        })
    }

    /// `a` is at least as strict as `b` in every respect.
    fn at_least_as_strict(a: &Disposition, b: &Disposition) -> bool {
        a.label >= b.label
            && (a.tainted || !b.tainted)
            && (!a.can_escalate || b.can_escalate)
            && (!a.can_write_memory || b.can_write_memory)
            && (a.read_only || !b.read_only)
            && (a.confined || !b.confined)
    }

    proptest! {
        #[test]
        fn adding_an_input_never_loosens(inputs in prop::collection::vec(arb_disposition(), 0..6), extra in arb_disposition()) {
            let before = compose(&inputs);
            let mut more = inputs.clone();
            more.push(extra);
            let after = compose(&more);
            prop_assert!(at_least_as_strict(&after, &before));
        }

        #[test]
        fn taint_and_halt_strip_escalation_and_memory(inputs in prop::collection::vec(arb_disposition(), 1..6)) {
            let out = compose(&inputs);
            if out.is_tainted() || out.label().is_halt() {
                prop_assert!(!out.can_escalate());
                prop_assert!(!out.can_write_memory());
                prop_assert!(out.is_read_only());
            }
            if inputs.iter().any(|d| d.is_tainted()) {
                prop_assert!(out.is_tainted());
                prop_assert!(out.label().is_halt());
            }
        }

        #[test]
        fn order_of_inputs_does_not_matter(mut inputs in prop::collection::vec(arb_disposition(), 0..6)) {
            let a = compose(&inputs);
            inputs.reverse();
            let b = compose(&inputs);
            prop_assert!(at_least_as_strict(&a, &b) && at_least_as_strict(&b, &a));
        }
    }

    #[test]
    fn tainted_allow_becomes_halt_tainted() {
        let out = compose(&[Disposition::allow(), Disposition::allow().tainted()]);
        assert_eq!(out.label(), Label::HaltTainted);
        let halted = compose(&[Disposition::halt("x"), Disposition::allow().tainted()]);
        assert_eq!(
            halted.label(),
            Label::HaltTainted,
            "halt_tainted outranks halt"
        );
    }

    #[test]
    fn empty_fold_allows() {
        let out = compose(&[]);
        assert_eq!(out.label(), Label::Allow);
        assert!(out.can_escalate() && out.can_write_memory() && !out.is_read_only());
    }

    #[test]
    fn permissions_need_every_input() {
        let out = compose(&[Disposition::allow(), Disposition::allow().no_escalate()]);
        assert!(!out.can_escalate());
        assert!(out.can_write_memory());
        let c = compose(&[
            Disposition::allow(),
            Disposition::new(Label::Verify).confined(),
        ]);
        assert_eq!(c.label(), Label::Verify);
        assert!(c.is_confined());
    }
}
