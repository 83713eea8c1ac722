//! Remote resolution against real repositories, cross-checked with the real `git`: URLs and
//! push URLs (`git remote get-url [--push] --all`), `insteadOf`/`pushInsteadOf` (including a
//! rewrite git really pushes through), origin's owner and the current branch.

mod common;

use branch_rules::remote::{
    current_branch, origin_slug, push_destinations, remote_urls, Destination, RepoSlug,
};
use branch_rules::GitHubHosts;
use common::Fixture;

fn lines(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

fn slug(host: &str, owner: &str, repo: &str) -> Destination {
    Destination::GitHub(RepoSlug {
        host: host.into(),
        owner: owner.into(),
        repo: repo.into(),
    })
}

/// Our fetch and push URLs equal what git itself reports for the remote.
fn assert_same_as_git(fx: &Fixture, remote: &str) {
    let ours = remote_urls(&fx.repo(), remote).expect("remote urls");
    assert!(ours.named, "{remote} should be a configured remote");
    assert_eq!(
        ours.fetch,
        lines(&fx.git(&["remote", "get-url", "--all", remote])),
        "fetch URLs of {remote}"
    );
    assert_eq!(
        ours.push,
        lines(&fx.git(&["remote", "get-url", "--push", "--all", remote])),
        "push URLs of {remote}"
    );
}

#[test]
fn url_forms_resolve_to_host_owner_repo() {
    let fx = Fixture::new();
    let hosts = GitHubHosts::new(["ghe.example.com"]);
    // "remote-name URL host/owner/repo" (the repository it names on a GitHub host; `-`: none)
    let cases = [
        "https https://github.com/octo/hello.git github.com/octo/hello",
        "scp git@github.com:octo/hello.git github.com/octo/hello",
        "sshport ssh://git@ssh.github.com:443/Octo/Hello github.com/Octo/Hello",
        "ent https://ghe.example.com/team/svc.git ghe.example.com/team/svc",
        "entssh git@ghe.example.com:team/svc.git ghe.example.com/team/svc",
        "gitlab git@gitlab.com:octo/hello.git -",
    ];
    let cases: Vec<(&str, &str, Destination)> = cases
        .into_iter()
        .map(|case| {
            let [name, url, github] = case.split(' ').collect::<Vec<_>>()[..] else {
                panic!("case {case:?}")
            };
            let expected = match github.split('/').collect::<Vec<_>>()[..] {
                [h, o, r] => slug(h, o, r),
                _ => Destination::OtherHost {
                    host: "gitlab.com".into(),
                    url: url.into(),
                },
            };
            (name, url, expected)
        })
        .collect();
    for (name, url, _) in &cases {
        fx.git(&["remote", "add", name, url]);
    }
    let local = fx.bare("local");
    fx.git(&["remote", "add", "local", &local]);
    let file_url = format!("file://{local}");
    fx.git(&["remote", "add", "fileurl", &file_url]);

    let repo = fx.repo();
    for (name, _, expected) in &cases {
        assert_eq!(
            push_destinations(&repo, name, &hosts).expect("resolve"),
            vec![expected.clone()],
            "remote {name}"
        );
        assert_same_as_git(&fx, name);
    }
    assert_eq!(
        push_destinations(&repo, "local", &hosts).expect("resolve"),
        vec![Destination::Local { url: local.clone() }]
    );
    assert_eq!(
        push_destinations(&repo, "fileurl", &hosts).expect("resolve"),
        vec![Destination::Local { url: file_url }]
    );
    // Without the enterprise host configured, the enterprise remote is just another host.
    assert!(matches!(
        push_destinations(&repo, "ent", &GitHubHosts::github_com_only()).expect("resolve")[..],
        [Destination::OtherHost { .. }]
    ));
}

#[test]
fn pushurl_and_rewrites_match_git() {
    let fx = Fixture::new();
    let hosts = GitHubHosts::github_com_only();
    // insteadOf shorthand, with a longer prefix that must win.
    fx.git(&["config", "url.git@github.com:.insteadOf", "gh:"]);
    fx.git(&["config", "url.git@github.com:special/.insteadOf", "gh:sp/"]);
    fx.git(&["remote", "add", "short", "gh:octo/hello"]);
    fx.git(&["remote", "add", "longer", "gh:sp/tool"]);
    // pushInsteadOf turns an https fetch URL into an ssh push URL on another owner.
    fx.git(&[
        "config",
        "url.ssh://git@github.com/fork-owner/.pushInsteadOf",
        "https://github.com/octo/",
    ]);
    fx.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/octo/hello.git",
    ]);
    // An explicit pushurl: pushInsteadOf does not apply to it, insteadOf does.
    fx.git(&["remote", "add", "both", "https://github.com/octo/a.git"]);
    fx.git(&["remote", "set-url", "--push", "both", "gh:elsewhere/b"]);
    // Several push URLs: git pushes to each.
    fx.git(&["remote", "add", "multi", "https://github.com/one/r.git"]);
    for url in ["git@github.com:two/r.git", "https://github.com/three/r"] {
        fx.git(&["remote", "set-url", "--add", "--push", "multi", url]);
    }

    for name in ["short", "longer", "origin", "both", "multi"] {
        assert_same_as_git(&fx, name);
    }
    let repo = fx.repo();
    let dest = |name: &str| push_destinations(&repo, name, &hosts).expect("resolve");
    assert_eq!(dest("short"), vec![slug("github.com", "octo", "hello")]);
    assert_eq!(dest("longer"), vec![slug("github.com", "special", "tool")]);
    assert_eq!(
        dest("origin"),
        vec![slug("github.com", "fork-owner", "hello")]
    );
    assert_eq!(dest("both"), vec![slug("github.com", "elsewhere", "b")]);
    assert_eq!(
        dest("multi"),
        vec![
            slug("github.com", "two", "r"),
            slug("github.com", "three", "r")
        ]
    );
    // Fetching from origin still uses the https URL: G3 reads origin's owner from it.
    assert_eq!(
        origin_slug(&repo).expect("origin"),
        Some(RepoSlug {
            host: "github.com".into(),
            owner: "octo".into(),
            repo: "hello".into()
        })
    );
}

#[test]
fn a_url_given_in_place_of_a_remote_is_rewritten_as_git_really_pushes_it() {
    let fx = Fixture::new();
    let hosts = GitHubHosts::github_com_only();
    let bare = fx.bare("sink");
    // Pushing to this GitHub URL really goes to a local bare repository.
    fx.git(&[
        "config",
        &format!("url.{bare}.pushInsteadOf"),
        "https://github.com/octo/hello.git",
    ]);
    let url = "https://github.com/octo/hello.git";
    let repo = fx.repo();
    let urls = remote_urls(&repo, url).expect("urls");
    assert!(!urls.named);
    assert_eq!(urls.fetch, vec![url.to_string()]);
    assert_eq!(
        push_destinations(&repo, url, &hosts).expect("resolve"),
        vec![Destination::Local { url: bare.clone() }]
    );
    // git agrees: the push lands in the bare repository, with no network.
    fx.git(&["push", "-q", url, "HEAD:refs/heads/landed"]);
    let landed = common::git(std::path::Path::new(&bare), &["branch", "--list", "landed"]);
    assert!(landed.contains("landed"), "{landed:?}");

    // And a plain GitHub URL with no rewrite is a GitHub destination.
    assert_eq!(
        push_destinations(&repo, "git@github.com:o/r.git", &hosts).expect("resolve"),
        vec![slug("github.com", "o", "r")]
    );
    // A word that is not a remote is a path, as for git.
    assert_eq!(
        push_destinations(&repo, "no-such-remote", &hosts).expect("resolve"),
        vec![Destination::Local {
            url: "no-such-remote".into()
        }]
    );
}

#[test]
fn origin_owner_and_current_branch() {
    let fx = Fixture::new();
    let repo = fx.repo();
    assert_eq!(origin_slug(&repo).expect("no origin"), None);
    assert_eq!(current_branch(&repo).expect("branch"), Some("main".into()));
    assert_eq!(
        fx.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "main"
    );

    fx.git(&[
        "remote",
        "add",
        "origin",
        "git@github.com:Octo-Org/Hello.git",
    ]);
    let repo = fx.repo();
    assert_eq!(
        origin_slug(&repo).expect("origin"),
        Some(RepoSlug {
            host: "github.com".into(),
            owner: "Octo-Org".into(),
            repo: "Hello".into()
        })
    );

    fx.git(&["switch", "-q", "-c", "feature/x"]);
    assert_eq!(
        current_branch(&fx.repo()).expect("branch"),
        Some("feature/x".into())
    );
    // An unborn branch still names where a push would go.
    fx.git(&["switch", "-q", "--orphan", "fresh"]);
    assert_eq!(
        current_branch(&fx.repo()).expect("branch"),
        Some("fresh".into())
    );
    fx.git(&["switch", "-q", "main"]);
    fx.git(&["switch", "-q", "--detach", "HEAD"]);
    assert_eq!(current_branch(&fx.repo()).expect("branch"), None);
    let (ok, _, _) = fx.git_try(&["symbolic-ref", "-q", "HEAD"]);
    assert!(!ok, "git agrees HEAD is detached");
}

#[test]
fn discover_from_a_subdirectory() {
    let fx = Fixture::new();
    let sub = fx.work().join("a/b");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let repo = branch_rules::remote::discover(&sub).expect("discover");
    assert_eq!(current_branch(&repo).expect("branch"), Some("main".into()));
    let outside = tempfile::tempdir().expect("tmp");
    assert!(branch_rules::remote::discover(outside.path()).is_err());
}

/// ssh aliases: what our reader says ssh connects to equals what `ssh -G` (ssh's own config
/// evaluation, no connection made) reports, and a remote through such an alias is GitHub.
#[test]
fn ssh_aliases_agree_with_ssh_and_lead_to_github() {
    use branch_rules::remote::SshAliases;
    let fx = Fixture::new();
    let dir = fx.dir.path();
    let included = dir.join("gh-hosts.conf");
    std::fs::write(&included, "Host inc-gh\n  HostName github.com\n").expect("write");
    let config = dir.join("ssh_config");
    std::fs::write(
        &config,
        format!(
            "Include {}\n\
             Host work-gh gh-*\n  HostName github.com\n  User git\n\
             Host gh-other\n  HostName other.example\n\
             Match originalhost corp\n  HostName ghe.example.com\n\
             Host *.lan !printer.lan\n  HostName %h.example\n",
            included.display()
        ),
    )
    .expect("write");
    let aliases = SshAliases::load(std::slice::from_ref(&config), Some(dir));
    let ssh_says = |alias: &str| -> Option<String> {
        let out = std::process::Command::new("ssh")
            .args(["-G", "-F"])
            .arg(&config)
            .arg(alias)
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("hostname ").map(str::to_string))
    };
    let cases = [
        ("work-gh", "github.com"),
        ("gh-anything", "github.com"),
        ("gh-other", "github.com"),
        ("inc-gh", "github.com"),
        ("corp", "ghe.example.com"),
        ("box.lan", "box.lan.example"),
        ("printer.lan", "printer.lan"),
        ("plain.example", "plain.example"),
    ];
    let have_ssh = ssh_says("work-gh").is_some();
    if !have_ssh {
        eprintln!("ssh not installed: checking against ssh_config(5) expectations only");
    }
    for (alias, expected) in cases {
        let ours = aliases
            .hostname_for(alias)
            .unwrap_or_else(|| alias.to_string());
        assert_eq!(ours, expected, "alias {alias}");
        if have_ssh {
            assert_eq!(ssh_says(alias).as_deref(), Some(expected), "ssh -G {alias}");
        }
    }

    fx.git(&["remote", "add", "origin", "git@work-gh:octo/hello.git"]);
    let hosts = GitHubHosts::new(["ghe.example.com"]).with_ssh_aliases(aliases);
    let repo = fx.repo();
    assert_eq!(
        push_destinations(&repo, "origin", &hosts).expect("resolve"),
        vec![slug("github.com", "octo", "hello")]
    );
    // Without the aliases, the same remote is an unknown host.
    assert!(matches!(
        push_destinations(&repo, "origin", &GitHubHosts::new(["ghe.example.com"]))
            .expect("resolve")[..],
        [Destination::OtherHost { .. }]
    ));
}

/// `git -c ...` overrides change where a push goes; with the same overrides we agree with git.
#[test]
fn command_line_config_overrides_are_applied_as_git_applies_them() {
    use branch_rules::remote::{push_destinations_with, remote_urls_with, ConfigOverrides};
    let fx = Fixture::new();
    let hosts = GitHubHosts::github_com_only();
    fx.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/octo/hello.git",
    ]);
    let pairs = [
        ("remote.origin.pushurl", "git@github.com:stranger/x.git"),
        ("Remote.origin.PUSHURL", "gh:other/y"),
        ("url.git@github.com:.insteadOf", "gh:"),
    ];
    let overrides = ConfigOverrides::from_pairs(pairs);
    let mut git_args: Vec<String> = Vec::new();
    for (k, v) in pairs {
        git_args.push("-c".into());
        git_args.push(format!("{k}={v}"));
    }
    let with_c = |rest: &[&str]| -> String {
        let mut args: Vec<&str> = git_args.iter().map(String::as_str).collect();
        args.extend(rest);
        fx.git(&args)
    };
    let repo = fx.repo();
    let ours = remote_urls_with(&repo, "origin", &overrides).expect("urls");
    assert_eq!(
        ours.push,
        lines(&with_c(&["remote", "get-url", "--push", "--all", "origin"]))
    );
    assert_eq!(
        push_destinations_with(&repo, "origin", &hosts, &overrides).expect("resolve"),
        vec![
            slug("github.com", "stranger", "x"),
            slug("github.com", "other", "y")
        ]
    );
    // Without the overrides the files alone decide.
    assert_eq!(
        push_destinations(&repo, "origin", &hosts).expect("resolve"),
        vec![slug("github.com", "octo", "hello")]
    );

    // A -c pushInsteadOf that git really pushes through, into a local bare repository.
    let sinks = fx.dir.path().join("sinks");
    let sink = sinks.join("hello.git");
    std::fs::create_dir_all(&sink).expect("mkdir");
    common::git(&sink, &["init", "-q", "--bare"]);
    let key = format!("url.{}/.pushInsteadOf", sinks.display());
    let overrides = ConfigOverrides::from_pairs([(key.as_str(), "https://github.com/octo/")]);
    assert_eq!(
        push_destinations_with(&repo, "origin", &hosts, &overrides).expect("resolve"),
        vec![Destination::Local {
            url: sink.display().to_string()
        }]
    );
    fx.git(&[
        "-c",
        &format!("{key}=https://github.com/octo/"),
        "push",
        "-q",
        "origin",
        "HEAD:refs/heads/landed",
    ]);
    let landed = common::git(&sink, &["branch", "--list", "landed"]);
    assert!(landed.contains("landed"));
}
