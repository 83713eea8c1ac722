//! Where the maintainer's GitHub credentials are, as agent commands would find them (C11, issue
//! 38 item 1): the token variables of the launch environment, gh's `hosts.yml`,
//! `~/.git-credentials` and `~/.netrc`. The broker takes the real token from here; the prefix
//! shows each file to agent commands with every secret in it replaced by the session's
//! placeholder. Pure over text and an environment lookup; the reads are bounded and done by the
//! caller.

use std::path::PathBuf;

/// The variables gh and git read a GitHub token from (the broker's list: one fact).
/// And the model API's (issue 39), withheld like the GitHub ones.
pub use credential_broker::{MODEL_VARS, TOKEN_VARS};

/// The largest credential file read (they are a few lines).
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Which credential file, by the grammar its secrets are read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// gh's `hosts.yml` (`oauth_token:` under a host).
    GhHosts,
    /// git's credential store: one URL per line, `https://user:token@host`.
    GitCredentials,
    /// `machine host login user password token`.
    Netrc,
    /// The CLI's own login (`.credentials.json` in `$CLAUDE_CONFIG_DIR` or `~/.claude`): the
    /// model API's OAuth tokens (issue 39), read with [`claude_oauth`], not as GitHub secrets.
    ClaudeCredentials,
}

impl Kind {
    /// The file name the masked copy gets in the broker's folder.
    pub fn mask_name(self) -> &'static str {
        match self {
            Kind::GhHosts => "mask-gh-hosts.yml",
            Kind::GitCredentials => "mask-git-credentials",
            Kind::Netrc => "mask-netrc",
            Kind::ClaudeCredentials => "mask-claude-credentials.json",
        }
    }
}

/// Where each credential file would be for this environment (whether or not it exists).
pub fn files(env: &dyn Fn(&str) -> Option<String>) -> Vec<(Kind, PathBuf)> {
    let home = env("HOME")
        .filter(|h| h.starts_with('/'))
        .map(PathBuf::from);
    let gh_dir = env("GH_CONFIG_DIR")
        .filter(|d| d.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| {
            env("XDG_CONFIG_HOME")
                .filter(|d| d.starts_with('/'))
                .map(|d| PathBuf::from(d).join("gh"))
        })
        .or_else(|| home.as_ref().map(|h| h.join(".config/gh")));
    let mut out = Vec::new();
    if let Some(d) = gh_dir {
        out.push((Kind::GhHosts, d.join("hosts.yml")));
    }
    let claude_dir = env("CLAUDE_CONFIG_DIR")
        .filter(|d| d.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".claude")));
    if let Some(h) = home {
        out.push((Kind::GitCredentials, h.join(".git-credentials")));
        out.push((Kind::Netrc, h.join(".netrc")));
    }
    if let Some(d) = claude_dir {
        out.push((Kind::ClaudeCredentials, d.join(".credentials.json")));
    }
    out
}

/// The CLI's stored OAuth login: the access token (what the model API is called with) and the
/// other secrets of the file (the refresh token), from `claudeAiOauth`. `None`: no login there.
pub fn claude_oauth(text: &str) -> Option<(String, Vec<String>)> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let o = v.get("claudeAiOauth")?;
    let field = |k: &str| {
        o.get(k)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(String::from)
    };
    let access = field("accessToken")?;
    let others = field("refreshToken").into_iter().collect();
    Some((access, others))
}

/// The ssh private keys in `~/.ssh` (regular files whose text starts as a private key does):
/// an agent command would push over ssh with them, past the broker. Shown to it as nothing.
pub fn ssh_private_keys(env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let Some(home) = env("HOME").filter(|h| h.starts_with('/')) else {
        return Vec::new();
    };
    let Ok(dir) = std::fs::read_dir(PathBuf::from(home).join(".ssh")) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.path())
        .filter(|p| {
            primitives::read::prefix(p, 64)
                .is_some_and(|head| is_private_key(&String::from_utf8_lossy(&head)))
        })
        .collect()
}

/// Whether a file's first bytes are a private key's (OpenSSH, PEM RSA/EC/DSA, PKCS#8).
pub fn is_private_key(head: &str) -> bool {
    head.starts_with("-----BEGIN ")
        && head
            .lines()
            .next()
            .is_some_and(|l| l.contains("PRIVATE KEY-----"))
}

/// The GitHub tokens of the launch environment, in [`TOKEN_VARS`]' order.
pub fn env_secrets(env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    TOKEN_VARS
        .iter()
        .filter_map(|v| env(v).map(|t| t.trim().to_string()))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Whether `host` is github.com's (the hosts whose secrets the broker holds).
pub fn is_github_host(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "github.com" || h.ends_with(".github.com")
}

/// The secrets a credential file holds: for gh's hosts every `oauth_token` (any host: none may
/// stay readable), for the others those of GitHub hosts. github.com's come first.
pub fn secrets_in(kind: Kind, text: &str) -> Vec<String> {
    let mut github = Vec::new();
    let mut other = Vec::new();
    match kind {
        Kind::GhHosts => {
            let mut host = String::new();
            for line in text.lines() {
                if !line.starts_with([' ', '\t', '#']) && line.trim_end().ends_with(':') {
                    host = line
                        .trim_end()
                        .trim_end_matches(':')
                        .trim_matches('"')
                        .into();
                }
                if let Some(v) = line.trim().strip_prefix("oauth_token:") {
                    let v = v.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
                    if !v.is_empty() {
                        if is_github_host(&host) {
                            &mut github
                        } else {
                            &mut other
                        }
                        .push(v);
                    }
                }
            }
        }
        Kind::GitCredentials => {
            for line in text.lines() {
                let Some((_, rest)) = line.trim().split_once("://") else {
                    continue;
                };
                let Some((userinfo, hostpart)) = rest.split_once('@') else {
                    continue;
                };
                let host = hostpart.split(['/', ':']).next().unwrap_or("");
                if !is_github_host(host) {
                    continue;
                }
                // The token may stand as the password or, alone, as the user.
                let secret = userinfo.split_once(':').map_or(userinfo, |(_, p)| p);
                if !secret.is_empty() {
                    github.push(secret.to_string());
                }
            }
        }
        // Model credentials: never a GitHub token ([`claude_oauth`] reads them).
        Kind::ClaudeCredentials => {}
        Kind::Netrc => {
            let words: Vec<&str> = text.split_whitespace().collect();
            let mut host = "";
            for pair in words.windows(2) {
                match pair[0] {
                    "machine" => host = pair[1],
                    "default" => host = "",
                    "password" if is_github_host(host) => github.push(pair[1].to_string()),
                    _ => {}
                }
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for s in github.into_iter().chain(other) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Whether gh's `hosts.yml` names github.com without a token under it: gh keeps that token in
/// the desktop keyring, where only `gh auth token` (outside agent commands) reaches it.
pub fn token_in_keyring(hosts: &str) -> bool {
    let mut in_github = false;
    let mut named = false;
    for line in hosts.lines() {
        if !line.starts_with([' ', '\t', '#']) && line.trim_end().ends_with(':') {
            let host = line.trim_end().trim_end_matches(':').trim_matches('"');
            in_github = host.eq_ignore_ascii_case("github.com");
            named |= in_github;
        } else if in_github && line.trim().starts_with("oauth_token:") {
            return false;
        }
    }
    named
}

/// `text` with every secret replaced by `placeholder` (longest first, so a secret that contains
/// another is replaced whole).
pub fn masked(text: &str, secrets: &[String], placeholder: &str) -> String {
    let mut sorted: Vec<&String> = secrets.iter().filter(|s| s.len() >= 4).collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for s in sorted {
        out = out.replace(s.as_str(), placeholder);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTS: &str = "github.com:\n    user: mona\n    oauth_token: gho_AAAAAAAAAAAAAAAAAAAA\n    git_protocol: https\n    users:\n        mona:\n            oauth_token: gho_AAAAAAAAAAAAAAAAAAAA\nghe.corp.example:\n    oauth_token: \"gho_CORPCORPCORPCORP\"\n";

    #[test]
    fn gh_hosts_every_token_github_first() {
        assert_eq!(
            secrets_in(Kind::GhHosts, HOSTS),
            ["gho_AAAAAAAAAAAAAAAAAAAA", "gho_CORPCORPCORPCORP"]
        );
        let m = masked(HOSTS, &secrets_in(Kind::GhHosts, HOSTS), "agp_x");
        assert!(!m.contains("gho_"), "{m}");
        assert_eq!(m.matches("agp_x").count(), 3);
        assert!(m.contains("user: mona"), "the rest is kept: {m}");
    }

    #[test]
    fn git_credentials_github_hosts_only() {
        let text = "https://mona:ghp_TOKENTOKENTOKEN@github.com\nhttps://x-access-token:ghp_SECOND@api.github.com/\nhttps://bob:glpat-KEEPKEEP@gitlab.com\nhttps://ghp_ALONEALONE@github.com:443\n";
        assert_eq!(
            secrets_in(Kind::GitCredentials, text),
            ["ghp_TOKENTOKENTOKEN", "ghp_SECOND", "ghp_ALONEALONE"]
        );
    }

    #[test]
    fn netrc_passwords_of_github_machines() {
        let text = "machine example.org login a password keep-me\nmachine github.com\n  login mona\n  password ghp_NETRCNETRC\ndefault login x password anon\n";
        assert_eq!(secrets_in(Kind::Netrc, text), ["ghp_NETRCNETRC"]);
    }

    #[test]
    fn where_the_files_are() {
        let env = |k: &str| match k {
            "HOME" => Some("/home/m".to_string()),
            "XDG_CONFIG_HOME" => Some("/home/m/.cfg".to_string()),
            _ => None,
        };
        let f = files(&env);
        assert_eq!(
            f[0],
            (Kind::GhHosts, PathBuf::from("/home/m/.cfg/gh/hosts.yml"))
        );
        assert_eq!(f[1].1, PathBuf::from("/home/m/.git-credentials"));
        let env2 = |k: &str| (k == "GH_CONFIG_DIR").then(|| "/etc/ghc".to_string());
        assert_eq!(
            files(&env2),
            [(Kind::GhHosts, PathBuf::from("/etc/ghc/hosts.yml"))]
        );
    }

    #[test]
    fn the_clis_login_is_a_model_credential_never_a_github_secret() {
        let text = r#"{"claudeAiOauth":{"accessToken":"sk-ant-oat01-ACCESS","refreshToken":"sk-ant-ort01-REFRESH","expiresAt":1999999999999,"scopes":["user:inference"]}}"#;
        assert_eq!(
            claude_oauth(text),
            Some((
                "sk-ant-oat01-ACCESS".to_string(),
                vec!["sk-ant-ort01-REFRESH".to_string()]
            ))
        );
        assert!(secrets_in(Kind::ClaudeCredentials, text).is_empty());
        assert_eq!(claude_oauth("{}"), None);
        assert_eq!(
            claude_oauth(r#"{"claudeAiOauth":{"accessToken":""}}"#),
            None
        );
        assert_eq!(claude_oauth("not json"), None);
        let env = |k: &str| match k {
            "HOME" => Some("/home/m".to_string()),
            "CLAUDE_CONFIG_DIR" => Some("/cfg/claude".to_string()),
            _ => None,
        };
        assert!(files(&env).contains(&(
            Kind::ClaudeCredentials,
            PathBuf::from("/cfg/claude/.credentials.json")
        )));
    }

    #[test]
    fn a_host_without_a_token_has_it_in_the_keyring() {
        assert!(token_in_keyring(
            "github.com:\n    user: mona\n    git_protocol: https\n"
        ));
        assert!(!token_in_keyring(HOSTS), "the token is in the file");
        assert!(
            !token_in_keyring("ghe.corp.example:\n    user: mona\n"),
            "not github.com"
        );
        assert!(!token_in_keyring(""));
    }

    #[test]
    fn private_keys_by_their_first_line() {
        assert!(is_private_key(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn"
        ));
        assert!(is_private_key("-----BEGIN RSA PRIVATE KEY-----\n"));
        assert!(is_private_key("-----BEGIN PRIVATE KEY-----\n"));
        assert!(!is_private_key("ssh-ed25519 AAAA mona@host"));
        assert!(!is_private_key("-----BEGIN CERTIFICATE-----\n"));
        assert!(!is_private_key("Host github.com\n  IdentityFile ~/.ssh/id"));
    }

    #[test]
    fn env_tokens_in_gh_order() {
        let env = |k: &str| match k {
            "GITHUB_TOKEN" => Some("second".to_string()),
            "GH_TOKEN" => Some(" first ".to_string()),
            "GH_ENTERPRISE_TOKEN" => Some(String::new()),
            _ => None,
        };
        assert_eq!(env_secrets(&env), ["first", "second"]);
    }
}
