//! Identity by what runs (issue 41): a judged program under another name is judged as what it
//! is: a copy or a hard link of the session's `claude` (by content), the dynamic loader asked to
//! run it, a script whose `#!` line names it with an argument. Look-alikes run: a copy of
//! `/bin/true`, a `#!/bin/sh` script, the loader running `/bin/true`. Root only.

mod common;
use common::*;

const LOADER: &str = "/lib64/ld-linux-x86-64.so.2";

#[test]
fn a_judged_program_under_another_name_is_judged_as_what_it_is() {
    let Some(w) = root_world("what-runs") else {
        return;
    };
    let claude = w.bin_dir().join("claude");
    let script = format!(
        r#"
cd "$HOME"
cp "{claude}" ./foo; ln "{claude}" ./bar
printf '#!{claude} --model=fable\n' > ./shebang.sh; chmod +x ./shebang.sh
cp /bin/true ./yes-true; printf '#!/bin/sh\necho plain script\n' > ./plain.sh; chmod +x ./plain.sh
for c in "./foo --model fable" "./bar --model fable" "{LOADER} {claude} --model fable" ./shebang.sh \
         ./yes-true ./plain.sh "{LOADER} /bin/true"; do
  $c >/dev/null; echo "$c => $?"
done
"#,
        claude = claude.display()
    );
    let out = w.ran("bash", &["-c", &script]);
    for refused in [
        "./foo --model fable => 126".to_string(),
        "./bar --model fable => 126".to_string(),
        format!("{LOADER} {} --model fable => 126", claude.display()),
        "./shebang.sh => 126".to_string(),
    ] {
        assert!(
            out.stdout.contains(&refused),
            "{refused}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
    for ran in [
        "./yes-true => 0",
        "./plain.sh => 0",
        &format!("{LOADER} /bin/true => 0"),
    ] {
        assert!(
            out.stdout.contains(ran),
            "{ran}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
    assert_eq!(out.said("(M3.launch"), 4, "{}", out.stderr);
}
