//! The token swap (C11's core): agent commands hold a per-session placeholder, the broker
//! holds the real token and puts it in place of the placeholder only on a request the rules
//! allowed. Pure functions over the `Authorization` value: `Bearer <t>` and `token <t>` (gh,
//! the REST API), `Basic base64(user:t)` (git's credential helpers; the token may stand as the
//! user or the password). The placeholder is as long as the real token, so a response in
//! which an upstream echoed the token can have it replaced byte for byte without changing
//! any length ([`crate::redact`]).

//!
//! The model API (issue 39) has pairs of its own ([`ModelCredentials`]): `ANTHROPIC_API_KEY`
//! sent as `x-api-key`, `ANTHROPIC_AUTH_TOKEN` sent as `Authorization: Bearer`, each swapped
//! only in its own header, only on a request to the model host the maintainer's credentials
//! belong to.

use base64::Engine;

/// The session's pair: what agent commands hold and what the broker adds.
#[derive(Clone)]
pub struct Credentials {
    placeholder: String,
    real: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials { placeholder, real: <withheld> }")
    }
}

/// What a request's `Authorization` presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presented {
    /// The session's placeholder.
    Placeholder,
    /// The real token itself (a copy that escaped: never added to, never forwarded).
    Real,
    /// Some other credential.
    Other,
    /// No `Authorization` header.
    Absent,
}

impl Credentials {
    /// The pair for `real`, with a placeholder of the same length made from `seed` (random
    /// bytes; at least 12 are used). Tokens shorter than 20 characters get a 20-character
    /// placeholder (and no byte-for-byte redaction guarantee).
    pub fn new(real: impl Into<String>, seed: &[u8]) -> Credentials {
        let real = real.into();
        let prefix = "agp_";
        let alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let len = real.len().max(20);
        let mut placeholder = String::from(prefix);
        let mut i = 0usize;
        while placeholder.len() < len {
            let b = seed.get(i % seed.len().max(1)).copied().unwrap_or(0) as usize;
            placeholder.push(alphabet[(b + i * 7) % alphabet.len()] as char);
            i += 1;
        }
        Credentials { placeholder, real }
    }

    /// The placeholder agent commands are given.
    pub fn placeholder(&self) -> &str {
        &self.placeholder
    }

    /// The real token (for the broker's own lookups only).
    pub(crate) fn real(&self) -> &str {
        &self.real
    }

    /// What `authorization` presents.
    pub fn presented(&self, authorization: Option<&str>) -> Presented {
        let Some(value) = authorization else {
            return Presented::Absent;
        };
        let secrets = secrets_in(value);
        if secrets.iter().any(|s| s == &self.placeholder) {
            Presented::Placeholder
        } else if !self.real.is_empty() && secrets.iter().any(|s| s == &self.real) {
            Presented::Real
        } else {
            Presented::Other
        }
    }

    /// `authorization` with the placeholder replaced by the real token, in the same scheme;
    /// `None` when it does not present the placeholder.
    pub fn with_real(&self, authorization: &str) -> Option<String> {
        let (scheme, rest) = authorization.trim().split_once(' ')?;
        let rest = rest.trim();
        match scheme.to_ascii_lowercase().as_str() {
            "bearer" | "token" if rest == self.placeholder => {
                Some(format!("{scheme} {}", self.real))
            }
            "basic" => {
                let (user, pass) = basic_pair(rest)?;
                let swap = |s: &str| match s == self.placeholder {
                    true => self.real.clone(),
                    false => s.to_string(),
                };
                if user != self.placeholder && pass != self.placeholder {
                    return None;
                }
                let pair = format!("{}:{}", swap(&user), swap(&pass));
                Some(format!(
                    "{scheme} {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ))
            }
            _ => None,
        }
    }
}

/// The model API's pairs: each present only when the broker holds that real credential.
#[derive(Debug, Clone, Default)]
pub struct ModelCredentials {
    /// `ANTHROPIC_API_KEY`, presented as `x-api-key`.
    pub key: Option<Credentials>,
    /// `ANTHROPIC_AUTH_TOKEN`, presented as `Authorization: Bearer`.
    pub token: Option<Credentials>,
}

/// The header `ANTHROPIC_API_KEY` is sent in.
pub const API_KEY_HEADER: &str = "x-api-key";

impl ModelCredentials {
    /// Pairs for the real credentials held, placeholders made from `seed` salted per pair (so
    /// two credentials of one length never share a placeholder, nor the GitHub one).
    pub fn new(key: Option<&str>, token: Option<&str>, seed: &[u8]) -> ModelCredentials {
        let salted = |salt: u8| -> Vec<u8> { seed.iter().map(|b| b.wrapping_add(salt)).collect() };
        ModelCredentials {
            key: key.map(|k| Credentials::new(k, &salted(17))),
            token: token.map(|t| Credentials::new(t, &salted(41))),
        }
    }

    /// Header `name: value` with the placeholder replaced by the real credential, in its own
    /// header only; `None` when it presents no placeholder of ours.
    pub fn with_real(&self, name: &str, value: &str) -> Option<String> {
        if name.eq_ignore_ascii_case(API_KEY_HEADER) {
            let pair = self.key.as_ref()?;
            return (value.trim() == pair.placeholder()).then(|| pair.real().to_string());
        }
        if name.eq_ignore_ascii_case("authorization") {
            let pair = self.token.as_ref()?;
            let (scheme, rest) = value.trim().split_once(' ')?;
            return (scheme.eq_ignore_ascii_case("bearer") && rest.trim() == pair.placeholder())
                .then(|| format!("{scheme} {}", pair.real()));
        }
        None
    }

    /// Every pair held.
    pub fn pairs(&self) -> impl Iterator<Item = &Credentials> {
        self.key.iter().chain(self.token.iter())
    }
}

/// The user and password of a Basic credential.
fn basic_pair(b64: &str) -> Option<(String, String)> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (u, p) = text.split_once(':')?;
    Some((u.to_string(), p.to_string()))
}

/// The secrets an `Authorization` value carries: the token of Bearer/token, the user and
/// password of Basic, else the whole value.
fn secrets_in(value: &str) -> Vec<String> {
    let value = value.trim();
    let Some((scheme, rest)) = value.split_once(' ') else {
        return vec![value.to_string()];
    };
    let rest = rest.trim();
    match scheme.to_ascii_lowercase().as_str() {
        "basic" => match basic_pair(rest) {
            Some((u, p)) => vec![u, p],
            None => vec![rest.to_string()],
        },
        _ => vec![rest.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str = "ghp_REALrealREALrealREALrealREALreal1234";

    fn creds() -> Credentials {
        Credentials::new(REAL, b"some random seed bytes")
    }

    fn basic(pair: &str) -> String {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }

    #[test]
    fn the_placeholder_is_as_long_as_the_token_and_never_it() {
        let c = creds();
        assert_eq!(c.placeholder().len(), REAL.len());
        assert_ne!(c.placeholder(), REAL);
        assert!(!format!("{c:?}").contains(REAL));
    }

    #[test]
    fn each_scheme_is_swapped_only_when_it_holds_the_placeholder() {
        let c = creds();
        let p = c.placeholder().to_string();
        assert_eq!(
            c.with_real(&format!("Bearer {p}")),
            Some(format!("Bearer {REAL}"))
        );
        assert_eq!(
            c.with_real(&format!("token {p}")),
            Some(format!("token {REAL}"))
        );
        assert_eq!(
            c.with_real(&basic(&format!("x-access-token:{p}"))),
            Some(basic(&format!("x-access-token:{REAL}")))
        );
        assert_eq!(
            c.with_real(&basic(&format!("{p}:"))),
            Some(basic(&format!("{REAL}:")))
        );
        assert_eq!(c.with_real("Bearer something-else"), None);
        assert_eq!(
            c.with_real(&format!("Bearer {p}x")),
            None,
            "a longer look-alike"
        );
        assert_eq!(c.with_real(&basic("user:pass")), None);
    }

    #[test]
    fn model_placeholders_are_swapped_in_their_own_header_only() {
        let key = "sk-ant-api03-REALkeyREALkeyREALkey";
        let token = "sk-ant-oat01-REALtokREALtokREALtok";
        assert_eq!(key.len(), token.len());
        let m = ModelCredentials::new(Some(key), Some(token), b"some random seed bytes");
        let (k, t) = (m.key.clone().unwrap(), m.token.clone().unwrap());
        assert_ne!(k.placeholder(), t.placeholder(), "same length, other salt");
        assert_ne!(k.placeholder(), creds().placeholder());
        assert_eq!(m.with_real("X-Api-Key", k.placeholder()), Some(key.into()));
        assert_eq!(
            m.with_real("authorization", &format!("Bearer {}", t.placeholder())),
            Some(format!("Bearer {token}"))
        );
        // Each placeholder in the other's header, another value, another scheme: untouched.
        assert_eq!(m.with_real("x-api-key", t.placeholder()), None);
        assert_eq!(
            m.with_real("authorization", &format!("Bearer {}", k.placeholder())),
            None
        );
        assert_eq!(m.with_real("x-api-key", "sk-other"), None);
        assert_eq!(
            m.with_real("authorization", &format!("token {}", t.placeholder())),
            None
        );
        assert_eq!(m.with_real("x-other", k.placeholder()), None);
        let none = ModelCredentials::new(None, None, b"seed");
        assert_eq!(none.with_real("x-api-key", k.placeholder()), None);
        assert!(!format!("{m:?}").contains("REAL"));
    }

    #[test]
    fn what_a_request_presents() {
        let c = creds();
        let p = c.placeholder().to_string();
        assert_eq!(c.presented(None), Presented::Absent);
        assert_eq!(
            c.presented(Some(&format!("token {p}"))),
            Presented::Placeholder
        );
        assert_eq!(
            c.presented(Some(&basic(&format!("x:{p}")))),
            Presented::Placeholder
        );
        assert_eq!(
            c.presented(Some(&format!("Bearer {REAL}"))),
            Presented::Real
        );
        assert_eq!(
            c.presented(Some(&basic(&format!("x:{REAL}")))),
            Presented::Real
        );
        assert_eq!(c.presented(Some("Bearer ghp_other")), Presented::Other);
    }
}
