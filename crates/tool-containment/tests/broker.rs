//! C11 through the real prefix (issue 38): an agent command holds the session's placeholder,
//! never the maintainer's token (environment, gh's and git's credential files, `/proc`), and
//! reaches GitHub through the session's broker, which adds the token only to what the rules
//! allow. The "GitHub" is the broker tests' loopback one (TLS with its own CA, real bare
//! repositories behind `git http-backend`, checking the real token), pinned by the launch
//! environment; the rules come from the loopback rules server. SessionEnd stops the broker.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

mod common;
#[path = "../../credential-broker/tests/support/mod.rs"]
mod support;

use common::*;
use std::path::Path;
use std::process::Output;
use support::model_api::{LoopbackModelApi, MODEL_KEY, MODEL_TOKEN};
use support::{git_in, received, Scene, REAL};

/// The launch environment of a maintainer whose token is in `GH_TOKEN`, with the broker's
/// GitHub pinned to the loopback one. No `CLAUDE_PROJECT_DIR`: the CLI gives Bash commands none,
/// so the session's own repository is where the first command runs.
fn launch_env(s: &Scene, ca: &Path) -> Vec<(String, String)> {
    let addr = s.github.addr;
    let pins = format!("github.com={addr},api.github.com={addr},uploads.github.com={addr}");
    [
        ("GH_TOKEN", REAL.to_string()),
        ("AGENT_GUARDS_BROKER_UPSTREAM", pins),
        ("AGENT_GUARDS_BROKER_UPSTREAM_CA", ca.display().to_string()),
        ("AGENT_GUARDS_GITHUB_API", s.rules.base()),
        ("GIT_CONFIG_NOSYSTEM", "1".to_string()),
        ("GH_WRITE_GUARD_ALLOW_PRIMARY_CHECKOUT", "1".to_string()),
        ("SSH_AUTH_SOCK", "/tmp/agent.sock".to_string()),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .to_vec()
}

/// A private key's text (its first line is what marks it).
const SSH_KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAsecret\n-----END OPENSSH PRIVATE KEY-----\n";

/// Who runs the agent's commands.
#[derive(Clone, Copy, PartialEq)]
enum Agent {
    Root,
    /// uid 65534, through a copy of the prefix it can run (a user namespace holds its mounts).
    Nobody,
}

/// One session of the agent's: its home (gh's and git's files holding the real token), a
/// clone of the maintainer's repository whose origin is github.com, the prefix it runs.
struct Session {
    t: TestSession,
    agent: Agent,
    bin: std::path::PathBuf,
    project: std::path::PathBuf,
    env: Vec<(String, String)>,
    hosts: String,
    creds: String,
}

impl Session {
    fn new(s: &Scene, agent: Agent) -> Session {
        let t = TestSession::new("broker");
        let home = t.home.path().to_path_buf();
        let ca = home.join("loopback-ca.pem");
        std::fs::write(&ca, &s.github.ca_pem).unwrap();
        let project = home.join("app");
        s.maintainers_work_in(&project);
        let gh_hosts = t.home.config_home().join("gh/hosts.yml");
        std::fs::create_dir_all(gh_hosts.parent().unwrap()).unwrap();
        let hosts = format!(
            "github.com:\n    user: mona\n    oauth_token: {REAL}\n    git_protocol: https\n"
        );
        std::fs::write(&gh_hosts, &hosts).unwrap();
        let creds = format!("https://mona:{REAL}@github.com\n");
        std::fs::write(home.join(".git-credentials"), &creds).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), SSH_KEY).unwrap();
        std::fs::write(
            home.join(".ssh/known_hosts"),
            "github.com ssh-ed25519 AAAA\n",
        )
        .unwrap();
        let mut bin = std::path::PathBuf::from(BIN);
        if agent == Agent::Nobody {
            bin = hand_to_nobody(&home);
        }
        let env = launch_env(s, &ca);
        Session {
            t,
            agent,
            bin,
            project,
            env,
            hosts,
            creds,
        }
    }

    fn run(&self, command: &str) -> Output {
        use std::os::unix::process::CommandExt;
        // The CLI's cwd file in the session's home, which each agent user can write.
        let call = tool_call(command).replace(
            "/tmp/claude-test-",
            &format!("{}/cwd-", self.t.home.path().display()),
        );
        let mut c = self.t.prefix_with(&self.bin, call);
        c.current_dir(&self.project)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if self.agent == Agent::Nobody {
            c.uid(65534).gid(65534);
        }
        c.output().unwrap()
    }

    fn gh_hosts(&self) -> std::path::PathBuf {
        self.t.home.config_home().join("gh/hosts.yml")
    }

    fn session_dir(&self) -> std::path::PathBuf {
        let state = self.t.home.state_home().join("agent-guards");
        session_store::Session::new(&state, Some(&self.t.id))
            .dir()
            .to_path_buf()
    }
}

fn head_of(bare: &Path, branch: &str) -> String {
    // The agent's clone may be another user's (git would refuse to read it otherwise).
    let o = git_in(bare, &["-c", "safe.directory=*", "rev-parse", branch], &[]);
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// The whole scenario for one kind of agent user.
fn the_agent_holds_the_placeholder_and_writes_through_the_broker(agent: Agent) {
    let s = Scene::new();
    let a = Session::new(&s, agent);

    // What the command can read: no real token anywhere, the placeholder in its place.
    let look = "env; cat \"$XDG_CONFIG_HOME/gh/hosts.yml\" ~/.git-credentials; tr '\\0' '\\n' < /proc/self/environ; git config --get-all credential.https://github.com.helper; umount \"$XDG_CONFIG_HOME/gh/hosts.yml\"; cat \"$XDG_CONFIG_HOME/gh/hosts.yml\"; suite=$(ls \"$XDG_STATE_HOME\"/agent-guards/sessions/*/second-line/); echo \"suite-processes=$(echo $suite | wc -w)\"; for p in $suite; do cat /proc/$p/environ; done; echo \"key-bytes=$(wc -c < ~/.ssh/id_ed25519)\"; cat ~/.ssh/known_hosts";
    let out = a.run(look);
    let text = received(&out);
    assert!(!text.contains(REAL), "the real token is visible: {text}");
    let placeholder = text
        .lines()
        .find_map(|l| l.strip_prefix("GH_TOKEN="))
        .expect("GH_TOKEN is set")
        .to_string();
    assert!(placeholder.starts_with("agp_"), "{placeholder}");
    assert!(
        text.contains(&format!("oauth_token: {placeholder}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("https://mona:{placeholder}@github.com")),
        "{text}"
    );
    assert!(text.contains("HTTPS_PROXY=http://127.0.0.1:"), "{text}");
    assert!(
        !text.lines().any(|l| l.starts_with("SSH_AUTH_SOCK=")),
        "{text}"
    );
    // The environments read were those of the session's broker and this command's supervisor
    // (the suite's processes of this session, by their records), at least.
    let suite: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("suite-processes="))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(suite >= 2, "{text}");
    // The ssh key reads as nothing; the rest of ~/.ssh as it is.
    assert!(text.contains("key-bytes=0"), "{text}");
    assert!(!text.contains("AAAAAAsecret"), "{text}");
    assert!(text.contains("github.com ssh-ed25519 AAAA"), "{text}");
    // The files themselves are unchanged, byte for byte.
    assert_eq!(std::fs::read_to_string(a.gh_hosts()).unwrap(), a.hosts);
    assert_eq!(
        std::fs::read_to_string(a.t.home.path().join(".git-credentials")).unwrap(),
        a.creds
    );

    // An allowed push lands, with the real token (the loopback GitHub checks it).
    let bare = s.dir.path().join("srv/maintainer/app.git");
    let main_before = head_of(&bare, "main");
    let out = a.run("git push -q origin HEAD:refs/heads/feature 2>&1");
    assert!(out.status.success(), "{}", received(&out));
    assert_eq!(head_of(&bare, "feature"), head_of(&a.project, "HEAD"));
    assert!(
        s.github.auths("POST").contains(&"real"),
        "{:?}",
        s.github.seen()
    );

    // Writes the rules refuse, spoken by hand at the wire (no git, no gh: nothing the text or
    // the exec gate reads as a GitHub write): the broker answers in GitHub's shape.
    let stranger = "curl -sS -i --max-time 20 -X POST -H \"Authorization: token $GH_TOKEN\" -d '{\"body\":\"hi\"}' https://api.github.com/repos/stranger/app/issues/1/comments";
    let text = received(&a.run(stranger));
    assert!(
        text.contains("HTTP/1.1 403") && text.contains("agent-guards: G3.other-owner"),
        "{text}"
    );
    let own = stranger.replace("stranger", "maintainer");
    let text = received(&a.run(&own));
    assert!(
        text.contains("HTTP/1.1 201"),
        "the session's own repository: {text}"
    );
    // The real token without the broker's placeholder: not sent at all.
    let real = own.replace("$GH_TOKEN", REAL);
    let text = received(&a.run(&real));
    assert!(text.contains("C11.no-placeholder"), "{text}");
    assert_eq!(head_of(&bare, "main"), main_before, "main is unchanged");

    // The broker is the session's: one process, recorded with the supervisors, stopped at
    // SessionEnd; its decisions are in the session's audit log.
    let record = std::fs::read_to_string(a.session_dir().join("broker/broker.json")).unwrap();
    let pid = serde_json::from_str::<serde_json::Value>(&record).unwrap()["pid"]
        .as_i64()
        .unwrap() as i32;
    assert!(alive(pid));
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    assert!(
        !String::from_utf8_lossy(&environ).contains(REAL),
        "scrubbed even for root"
    );
    let audit = std::fs::read_to_string(a.session_dir().join("audit.jsonl")).unwrap_or_default();
    assert!(
        audit.contains("\"binary\":\"credential-broker\"") && audit.contains("G3.other-owner"),
        "{audit}"
    );
    assert!(!audit.contains(REAL));
    for line in audit.lines() {
        session_store::AuditRecord::parse(line).unwrap();
    }
    let (code, err) = a.t.session_end();
    assert!(code == 0 || code == 2, "{err}");
    assert!(
        wait_for(std::time::Duration::from_secs(5), || !alive(pid)),
        "the broker still runs after SessionEnd"
    );
}

#[test]
fn as_root_the_agent_holds_the_placeholder_and_writes_through_the_broker() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run("broker through the prefix", "needs root");
        return;
    }
    the_agent_holds_the_placeholder_and_writes_through_the_broker(Agent::Root);
}

#[test]
fn as_another_user_the_agent_holds_the_placeholder_and_writes_through_the_broker() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run("broker as uid 65534", "needs root to become uid 65534");
        return;
    }
    the_agent_holds_the_placeholder_and_writes_through_the_broker(Agent::Nobody);
}

#[test]
fn without_a_broker_the_command_holds_a_placeholder_and_is_told_why() {
    let t = TestSession::new("no-broker");
    let project = tempfile::tempdir().unwrap();
    // The broker's folder is a file: nothing can be started there.
    let state = t.home.state_home().join("agent-guards");
    let session = session_store::Session::new(&state, Some(&t.id));
    std::fs::create_dir_all(session.dir()).unwrap();
    std::fs::write(session.dir().join("broker"), "not a folder").unwrap();
    let out = t
        .prefix(tool_call("echo \"token=$GH_TOKEN\"; env | grep -c PROXY"))
        .current_dir(project.path())
        .env("GH_TOKEN", REAL)
        .output()
        .unwrap();
    let text = received(&out);
    assert!(!text.contains(REAL), "{text}");
    assert!(text.contains("token=agp_no_broker"), "{text}");
    assert!(text.contains("C11.unavailable"), "{text}");
    assert!(text.lines().any(|l| l == "0"), "no proxy: {text}");
}

/// A script that asks the model API directly: with the key it finds in its environment
/// (`env`), or as the CLI does with its stored login, the bearer token from
/// `~/.claude/.credentials.json` (`login`).
const ASK: &str = r#"
import json, os, sys, urllib.request, urllib.error
if sys.argv[1] == "login":
    login = json.load(open(os.path.expanduser("~/.claude/.credentials.json")))["claudeAiOauth"]
    print("file token", login["accessToken"][:4], "refresh", login["refreshToken"][:4])
    auth = {"authorization": "Bearer " + login["accessToken"], "anthropic-beta": "oauth-2025-04-20"}
else:
    auth = {"x-api-key": os.environ.get("ANTHROPIC_API_KEY", "")}
def ask(model):
    body = json.dumps({"model": model, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}).encode()
    req = urllib.request.Request("https://api.anthropic.com/v1/messages", data=body, headers=dict(auth, **{
        "anthropic-version": "2023-06-01", "content-type": "application/json"}))
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            print(model, r.status, r.read().decode()[:400])
    except urllib.error.HTTPError as e:
        print(model, e.code, e.read().decode()[:400])
ask("claude-fable-5")
ask("claude-haiku-4-5")
"#;

/// The model key in the launch environment (issue 39): the command holds its placeholder; a
/// request for the maintainer-only tier is refused at the wire before the API sees it, an
/// allowed model is answered with the real key.
fn the_model_key_is_withheld_and_the_tier_refused_at_the_wire(agent: Agent) {
    let (_s, api, mut a) = model_scene(agent);
    a.env.push(("ANTHROPIC_API_KEY".into(), MODEL_KEY.into()));
    let out = a.run("python3 ~/ask.py env 2>&1; echo \"key=$ANTHROPIC_API_KEY\"");
    let text = received(&out);
    assert!(!text.contains(MODEL_KEY), "the real key is visible: {text}");
    assert!(text.contains("key=agp_"), "{text}");
    judged_at_the_wire(&text, &api);
}

/// A session whose broker's model API is the loopback one, with [`ASK`] in its home.
fn model_scene(agent: Agent) -> (Scene, LoopbackModelApi, Session) {
    let s = Scene::new();
    let api = LoopbackModelApi::start();
    let mut a = Session::new(&s, agent);
    // Both loopback servers' CAs, for the broker's upstreams.
    let cas = a.t.home.path().join("loopback-ca.pem");
    std::fs::write(&cas, format!("{}\n{}", s.github.ca_pem, api.ca_pem)).unwrap();
    for (k, v) in a.env.iter_mut() {
        if k == "AGENT_GUARDS_BROKER_UPSTREAM" {
            v.push_str(&format!(",api.anthropic.com={}", api.addr));
        }
    }
    std::fs::write(a.t.home.path().join("ask.py"), ASK).unwrap();
    (s, api, a)
}

/// What [`ASK`] printed and the API saw: the tier refused at the wire in the API's shape, the
/// allowed model answered, every request the API saw carrying the real credential.
fn judged_at_the_wire(text: &str, api: &LoopbackModelApi) {
    assert!(
        text.contains("claude-fable-5 403") && text.contains("M3."),
        "the tier is refused in the API's shape: {text}"
    );
    assert!(text.contains("claude-haiku-4-5 200"), "{text}");
    assert_eq!(
        api.models(),
        [Some("claude-haiku-4-5".to_string())],
        "the API never saw the tier"
    );
    assert!(
        api.seen().iter().all(|r| r.auth == "real"),
        "{:?}",
        api.seen()
    );
}

/// The CLI's own stored login (issue 39): no model credential in the launch environment, the
/// OAuth tokens in `~/.claude/.credentials.json`. The command sees the file with placeholders
/// and no model variable; asking the API with the file's token as the CLI does, the tier is
/// refused at the wire and an allowed model is answered with the real token.
fn the_clis_login_is_withheld_and_the_tier_refused_at_the_wire(agent: Agent) {
    let (_s, api, a) = model_scene(agent);
    let refresh = "sk-ant-ort01-REALrefreshREALrefreshREALrefresh-CC";
    let login = a.t.home.path().join(".claude/.credentials.json");
    std::fs::create_dir_all(login.parent().unwrap()).unwrap();
    let text = format!(
        r#"{{"claudeAiOauth":{{"accessToken":"{MODEL_TOKEN}","refreshToken":"{refresh}","expiresAt":1999999999999,"scopes":["user:inference"]}}}}"#
    );
    std::fs::write(&login, &text).unwrap();
    if agent == Agent::Nobody {
        let _ = std::process::Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(login.parent().unwrap())
            .status();
    }
    let out = a.run(
        "python3 ~/ask.py login 2>&1; echo \"vars=${ANTHROPIC_AUTH_TOKEN:-none}/${ANTHROPIC_API_KEY:-none}\"; cat ~/.claude/.credentials.json",
    );
    let got = received(&out);
    assert!(
        !got.contains(MODEL_TOKEN) && !got.contains(refresh),
        "the real login is visible: {got}"
    );
    assert!(got.contains("file token agp_ refresh agp_"), "{got}");
    assert!(
        got.contains("vars=none/none"),
        "no model variable added: {got}"
    );
    judged_at_the_wire(&got, &api);
    // The CLI itself (outside the command) still has its file.
    assert_eq!(std::fs::read_to_string(&login).unwrap(), text);
}

#[test]
fn as_root_the_clis_login_is_withheld_and_the_tier_refused_at_the_wire() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run("the CLI's login through the prefix", "needs root");
        return;
    }
    the_clis_login_is_withheld_and_the_tier_refused_at_the_wire(Agent::Root);
}

#[test]
fn as_another_user_the_clis_login_is_withheld_and_the_tier_refused_at_the_wire() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run(
            "the CLI's login as uid 65534",
            "needs root to become uid 65534",
        );
        return;
    }
    the_clis_login_is_withheld_and_the_tier_refused_at_the_wire(Agent::Nobody);
}

#[test]
fn as_root_the_model_key_is_withheld_and_the_tier_refused_at_the_wire() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run("model broker through the prefix", "needs root");
        return;
    }
    the_model_key_is_withheld_and_the_tier_refused_at_the_wire(Agent::Root);
}

#[test]
fn as_another_user_the_model_key_is_withheld_and_the_tier_refused_at_the_wire() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run(
            "model broker as uid 65534",
            "needs root to become uid 65534",
        );
        return;
    }
    the_model_key_is_withheld_and_the_tier_refused_at_the_wire(Agent::Nobody);
}

/// gh keeps the token in the desktop keyring (`hosts.yml` names github.com with no token): the
/// broker asks `gh auth token` once, outside the command, and the command works with the
/// placeholder. The keyring cannot run here, so a stand-in `gh` answers `auth token` (a real
/// process on the `PATH`, as gh would be).
#[test]
fn a_token_in_ghs_keyring_is_asked_by_the_broker_and_withheld_from_the_command() {
    if !nix::unistd::geteuid().is_root() {
        hook_replay::skip::cannot_run("keyring through the prefix", "needs root");
        return;
    }
    let s = Scene::new();
    let mut a = Session::new(&s, Agent::Root);
    std::fs::write(
        a.gh_hosts(),
        "github.com:\n    user: mona\n    git_protocol: https\n",
    )
    .unwrap();
    let bin = a.t.home.path().join("keyring-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!("#!/bin/sh\n[ \"$1 $2\" = \"auth token\" ] && echo {REAL} && exit 0\nexit 1\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    a.env.retain(|(k, _)| k != "GH_TOKEN");
    a.env.push(("PATH".into(), path));
    std::fs::remove_file(a.t.home.path().join(".git-credentials")).unwrap();
    let out = a.run("echo \"token=$GH_TOKEN\"; git push -q origin HEAD:refs/heads/feature 2>&1; echo \"push $?\"");
    let text = received(&out);
    assert!(
        text.contains("token=agp_") && text.contains("push 0"),
        "{text}"
    );
    assert!(!text.contains(REAL), "{text}");
    assert!(
        s.github.auths("POST").contains(&"real"),
        "{:?}",
        s.github.seen()
    );
}
