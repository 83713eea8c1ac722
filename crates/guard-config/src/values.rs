//! The typed values of the config's word-valued keys: `integrity_mode`, `egress_mode`,
//! `credential_broker`, `audit_journal` and `primary_checkout`.
//!
//! Each reads leniently: a value of no known form takes the key's fail-closed default instead of
//! failing the whole file, so a typo in one key never switches another guard off.
//! [`crate::diagnose`] names the value that was not understood.

use serde::{Deserialize, Deserializer};
use std::str::FromStr;

/// A config enum read from one of its words (surrounding blanks and case ignored), with
/// `as_str` giving the word back.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $word:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
        }

        impl $name {
            /// The word for the value, as the config writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                let s = s.trim();
                [$($name::$variant,)+]
                    .into_iter()
                    .find(|v| s.eq_ignore_ascii_case(v.as_str()))
                    .ok_or_else(|| "not a recognised word".to_string())
            }
        }
    };
}

words! {
    /// I5, config `integrity_mode` (older name `mode`).
    IntegrityMode {
        /// Records and reports signals (the default).
        #[default]
        Observe = "observe",
        /// Also denies the critical actions at PreToolUse.
        Enforce = "enforce",
    }
}

words! {
    /// E5, config `egress_mode`.
    EgressMode {
        /// Blocks a red final message once (the default).
        #[default]
        Enforce = "enforce",
        /// Only records it.
        Report = "report",
    }
}

words! {
    /// C11, config `credential_broker`.
    CredentialBroker {
        /// Agent commands hold placeholders and reach GitHub through the session's broker
        /// (the default, wherever a GitHub credential is found).
        #[default]
        On = "on",
        /// Agent commands get the maintainer's credentials as the CLI has them.
        Off = "off",
    }
}

words! {
    /// Issue 40, config `audit_journal`: whether each audit record is also sent to the system
    /// journal (or syslog), where the agent's user cannot erase it.
    AuditJournal {
        /// Sent when journald's socket (or `/dev/log`) exists (the default).
        #[default]
        Auto = "auto",
        /// Sent always; no socket is an undelivered record, said like a log that could not be
        /// written.
        On = "on",
        /// Never sent.
        Off = "off",
    }
}

impl AuditJournal {
    /// How strict the value is: `on` over `auto` over `off` (the system config's value may only
    /// be raised by a per-user file).
    pub fn rank(self) -> u8 {
        match self {
            AuditJournal::Off => 0,
            AuditJournal::Auto => 1,
            AuditJournal::On => 2,
        }
    }
}

/// Reads a word-valued key: a value that is not one of its words reads as absent (the default).
pub(crate) fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
{
    let v = toml::Value::deserialize(d)?;
    Ok(v.as_str().and_then(|s| s.parse().ok()))
}

/// G6, config `primary_checkout`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CheckoutConfig {
    /// Absent, `"deny"`, or a value of no known shape.
    #[default]
    Deny,
    /// `"allow"`: every primary checkout.
    Allow,
    /// `{ "/path" = "allow" | "deny" }`, paths as written: the longest path a repository is in
    /// decides. An entry that is not text is left out; text other than `"allow"` denies.
    PerRepo(Vec<(String, bool)>),
}

impl CheckoutConfig {
    /// The policy a TOML value states.
    pub fn from_toml(value: &toml::Value) -> CheckoutConfig {
        let allow = |s: &str| s.eq_ignore_ascii_case("allow");
        match value {
            toml::Value::String(s) if allow(s) => CheckoutConfig::Allow,
            toml::Value::Table(t) => CheckoutConfig::PerRepo(
                t.iter()
                    .filter_map(|(k, v)| Some((k.clone(), allow(v.as_str()?))))
                    .collect(),
            ),
            _ => CheckoutConfig::Deny,
        }
    }
}

/// Any TOML value reads as a policy; one of no known shape denies.
impl<'de> Deserialize<'de> for CheckoutConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CheckoutConfig, D::Error> {
        toml::Value::deserialize(d).map(|v| CheckoutConfig::from_toml(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_their_words_in_any_case() {
        assert_eq!(" ENFORCE ".parse(), Ok(IntegrityMode::Enforce));
        assert_eq!("observe".parse(), Ok(IntegrityMode::Observe));
        assert!("strict".parse::<IntegrityMode>().is_err());
        assert_eq!("REPORT ".parse(), Ok(EgressMode::Report));
        assert!("reprot".parse::<EgressMode>().is_err());
        assert_eq!(IntegrityMode::Enforce.as_str(), "enforce");
        assert_eq!(EgressMode::Report.as_str(), "report");
    }

    #[test]
    fn checkout_shapes() {
        let v = |s: &str| toml::from_str::<toml::Table>(&format!("k = {s}")).unwrap()["k"].clone();
        assert_eq!(
            CheckoutConfig::from_toml(&v("\"Allow\"")),
            CheckoutConfig::Allow
        );
        for deny in ["\"deny\"", "\"alow\"", "3", "[\"allow\"]"] {
            assert_eq!(
                CheckoutConfig::from_toml(&v(deny)),
                CheckoutConfig::Deny,
                "{deny}"
            );
        }
        assert_eq!(
            CheckoutConfig::from_toml(&v("{ \"/a\" = \"allow\", \"/b\" = \"yes\", \"/c\" = 1 }")),
            CheckoutConfig::PerRepo(vec![("/a".into(), true), ("/b".into(), false)])
        );
    }
}
