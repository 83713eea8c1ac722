//! What the requirement modules read: the command and every script and shell alias it runs,
//! parsed once ([`Units`]), and the [`Analysis`] over them (operations, invocations, aliases).
//! Its own module so the rule modules and the dispatcher ([`crate::judge`](mod@crate::judge)) both depend on it,
//! not on each other.

use crate::context::Context;
use crate::git_push::PushPlan;
use crate::operations::{self, Op};
use crate::world::{LookupError, Rules, World, MAX_SCRIPT_BYTES};
use command_effects::dirs::{self, DirCx, DirIndex};
use command_effects::scripts::{expand_tilde, written_into};
use command_effects::scripts::{script_path, stdin_script_path};
use shell_syntax::{CommandView, Invocation, Parsed};
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How deep scripts run by path are followed (G0: depth 3); a script past it is a typed
/// unknown (G0.past-bound), never unseen.
pub const MAX_SCRIPT_DEPTH: usize = command_effects::scripts::MAX_SCRIPT_DEPTH;
/// Most scripts read for one command.
const MAX_SCRIPTS: usize = 16;
/// Most script text read for one command, all scripts together.
const SCRIPT_BUDGET: usize = MAX_SCRIPT_BYTES as usize * 4;

/// Where a unit of text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitSource {
    /// The Bash tool's command itself.
    Command,
    /// A script the command (or another script) runs by path.
    Script {
        path: PathBuf,
        /// Index of the unit whose invocation runs it, and that invocation's index.
        parent: usize,
        invocation: usize,
    },
    /// Shell text a git or gh invocation hands to a shell: a shell alias's (`!...`), or a
    /// command given to git (`rebase --exec`, `bisect run`, ...: command-effects' `git_runs`).
    /// `name` says which (`shell alias "x"`, `git rebase --exec`).
    HandedShell {
        name: String,
        parent: usize,
        invocation: usize,
    },
}

self_cell::self_cell!(
    /// A parse and its command view, which borrows the parse's arena.
    struct Viewed {
        owner: Parsed,
        #[covariant]
        dependent: CommandView,
    }
    impl {Debug}
);

/// One parsed text: the command, or a script it runs by path.
#[derive(Debug)]
pub struct Unit {
    pub text: String,
    viewed: Viewed,
    pub source: UnitSource,
    /// The directory the text starts in.
    pub cwd: PathBuf,
    /// How many scripts-by-path deep (0: the command).
    pub depth: usize,
    /// `CDPATH` of the hook's environment (a relative `cd` searches it).
    cdpath: Option<String>,
    /// What the directory of each invocation is computed from (built on first use).
    dirs: OnceCell<DirIndex>,
}

impl Unit {
    fn new(text: String, source: UnitSource, cwd: PathBuf, depth: usize, cx: &Context) -> Unit {
        let viewed = Viewed::new(shell_syntax::parse(&text), shell_syntax::commands);
        Unit {
            text,
            viewed,
            source,
            cwd,
            depth,
            cdpath: cx.env("CDPATH").map(String::from),
            dirs: OnceCell::new(),
        }
    }

    /// The parse of the text.
    pub fn parsed(&self) -> &Parsed {
        self.viewed.borrow_owner()
    }

    /// The command view of the text.
    pub fn view(&self) -> &CommandView<'_> {
        self.viewed.borrow_dependent()
    }

    /// The directory an invocation runs in (cwd, then its `cd`s as command-effects reads them:
    /// `CDPATH`, functions that shadow `cd` or change directory); `None` when unknown.
    pub fn dir_of(
        &self,
        inv: &Invocation<'_>,
        home: Option<&Path>,
        world: &dyn World,
    ) -> Option<PathBuf> {
        let ix = self.dirs.get_or_init(|| DirIndex::of(self.view(), home));
        let is_dir = |p: &Path| world.is_dir(p);
        let cx = DirCx {
            home,
            cdpath: self.cdpath.as_deref(),
            is_dir: &is_dir,
        };
        dirs::dir_of(self.view(), ix, inv, &self.cwd, &cx)
    }
}

/// `command` with the text of each file it `source`s (read from the world, relative to the
/// directory the `source` runs in) in place; `None` when none was read.
fn sourced_in_place(command: &str, cx: &Context, world: &dyn World) -> Option<String> {
    let home = cx.home();
    let is_dir = |p: &Path| world.is_dir(p);
    let dcx = DirCx {
        home: home.as_deref(),
        cdpath: cx.env("CDPATH"),
        is_dir: &is_dir,
    };
    let read = |p: &Path| world.read_script(p).ok();
    let at = command_effects::scripts::Reading {
        base: &cx.cwd,
        dirs: &dcx,
        read: &read,
        written: &[],
    };
    command_effects::scripts::sourced_in_place(command, &at)
}

/// A script that was named but not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnreadScript {
    pub path: String,
    pub cause: String,
    /// Not read because a read bound was reached (depth, count, size, budget): what it does is
    /// unknown, and G0 refuses (issue 47). A script that is missing or not a file is not this.
    pub past_bound: bool,
}

impl UnreadScript {
    fn unseen(path: String, cause: impl Into<String>) -> UnreadScript {
        UnreadScript {
            path,
            cause: cause.into(),
            past_bound: false,
        }
    }

    fn past_bound(path: String, cause: impl Into<String>) -> UnreadScript {
        UnreadScript {
            path,
            cause: cause.into(),
            past_bound: true,
        }
    }
}

/// The texts one command runs, parsed: the command itself and the scripts and shell aliases it
/// runs (followed up to [`MAX_SCRIPT_DEPTH`]). An [`Analysis`] borrows them: its operations
/// hold the views' arguments.
pub struct Units<'a> {
    cx: &'a Context,
    world: &'a dyn World,
    /// Branch rules asked instead of the world's (an offline `explain`).
    rules: Option<&'a dyn Rules>,
    /// `units[0]` is the command; the rest are scripts run by path.
    pub units: Vec<Unit>,
    pub unread_scripts: Vec<UnreadScript>,
    gh_aliases: OnceCell<BTreeMap<String, String>>,
    /// Words that alias expansion makes up (the arguments of an expanded `git` alias).
    arena: bumpalo::Bump,
}

impl<'a> Units<'a> {
    /// Parses the command and follows the scripts it runs by path.
    pub fn build(command: &str, cx: &'a Context, world: &'a dyn World) -> Units<'a> {
        // A sourced file runs in the command's own shell: its text goes in place, so its
        // exports, `cd`s and functions reach the commands after it.
        let text = sourced_in_place(command, cx, world).unwrap_or_else(|| command.to_string());
        Units::of_text(text, cx, world)
    }

    /// The units of one exec's command line (the exec gate's `NAME=value program words...`,
    /// every word quoted): one simple command, with no commands after it for a sourced file's
    /// exports or `cd`s to reach, so the text is parsed once, without looking for sources
    /// (a file the program runs by path is still followed).
    pub fn build_exec(command: &str, cx: &'a Context, world: &'a dyn World) -> Units<'a> {
        Units::of_text(command.to_string(), cx, world)
    }

    fn of_text(text: String, cx: &'a Context, world: &'a dyn World) -> Units<'a> {
        let mut u = Units {
            cx,
            world,
            rules: None,
            units: vec![Unit::new(text, UnitSource::Command, cx.cwd.clone(), 0, cx)],
            unread_scripts: Vec::new(),
            gh_aliases: OnceCell::new(),
            arena: bumpalo::Bump::new(),
        };
        u.follow_scripts();
        u
    }

    /// The same units judged against other branch rules than the world's: every other fact
    /// still comes from the world, so no `World` method needs forwarding.
    pub fn with_rules(mut self, rules: &'a dyn Rules) -> Units<'a> {
        self.rules = Some(rules);
        self
    }

    /// gh's aliases (read once).
    pub fn gh_aliases(&self) -> &BTreeMap<String, String> {
        self.gh_aliases.get_or_init(|| self.world.gh_aliases())
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.cx.home()
    }

    /// Shell text the invocations of one unit hand to a shell: (invocation, what handed it,
    /// the text). A command git is handed whose text is decided at run time is not read (the
    /// exec gate judges what it runs).
    fn handed_shells_of(&self, unit_index: usize) -> Vec<(usize, String, String)> {
        let unit = &self.units[unit_index];
        // Only the alias text is kept: the expanded call's made-up words live here briefly.
        let arena = bumpalo::Bump::new();
        let mut out = Vec::new();
        for inv in &unit.view().invocations {
            match inv.name() {
                Some("gh") => {
                    let args = command_effects::gh::parse(&inv.args);
                    if let Some(top) = args.top.as_deref() {
                        if !command_effects::gh::is_builtin(top) {
                            if let Some(text) =
                                self.gh_aliases().get(top).and_then(|e| e.strip_prefix('!'))
                            {
                                out.push((
                                    inv.index,
                                    format!("shell alias {top:?}"),
                                    text.to_string(),
                                ));
                            }
                        }
                    }
                }
                Some("git") => {
                    let call = command_effects::git::parse_git(inv);
                    for h in command_effects::git_runs::handed(&call) {
                        if let Some(text) = h.text {
                            out.push((inv.index, format!("git {}", h.what), text));
                        }
                    }
                    if call
                        .sub()
                        .is_some_and(|s| !command_effects::git_alias::is_builtin(s))
                    {
                        let home = self.home();
                        let dir = unit.dir_of(inv, home.as_deref(), self.world).and_then(|d| {
                            let own = dirs::tilde_home(inv, home.as_deref());
                            dirs::after_git_c(&d, &call, own.as_deref())
                        });
                        let persisted = dir.map(|d| self.world.git_aliases(&d)).unwrap_or_default();
                        let e = command_effects::git_alias::expand(&arena, &call, &persisted);
                        if let Some(text) = e.shell {
                            let name = e.chain.last().cloned().unwrap_or_default();
                            out.push((inv.index, format!("shell alias {name:?}"), text));
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// What the command wrote into `full` before invocation `before` of unit `u`, else what
    /// the unit's callers wrote into it before they ran it (`echo 'git push' > a.sh; echo 'bash
    /// a.sh' > b.sh; bash b.sh`).
    fn written_before(&self, u: usize, before: usize, full: &Path) -> Option<Option<String>> {
        let unit = &self.units[u];
        let home = self.home();
        let dir_of = |inv: &Invocation<'_>| unit.dir_of(inv, home.as_deref(), self.world);
        let caller = match unit.source {
            UnitSource::Script {
                parent, invocation, ..
            }
            | UnitSource::HandedShell {
                parent, invocation, ..
            } => Some((parent, invocation)),
            _ => None,
        };
        let read = |p: &Path| match caller.and_then(|(c, i)| self.written_before(c, i, p)) {
            Some(text) => text,
            None => self.world.read_script(p).ok(),
        };
        written_into(unit.view(), before, full, &dir_of, home.as_deref(), &read)
            .or_else(|| caller.and_then(|(c, i)| self.written_before(c, i, full)))
    }

    fn follow_scripts(&mut self) {
        let mut next = 0;
        let mut budget = SCRIPT_BUDGET;
        while next < self.units.len() {
            let unit_index = next;
            next += 1;
            // At the depth bound the unit's scripts are still found, and recorded as past it.
            let at_bound = self.units[unit_index].depth >= MAX_SCRIPT_DEPTH;
            if at_bound {
                for (_, name, _) in self.handed_shells_of(unit_index) {
                    self.unread_scripts.push(UnreadScript::past_bound(
                        name,
                        format!("shell text more than {MAX_SCRIPT_DEPTH} levels deep"),
                    ));
                }
            } else if self.units.len() <= MAX_SCRIPTS {
                for (inv_index, name, text) in self.handed_shells_of(unit_index) {
                    let unit = &self.units[unit_index];
                    let cwd = unit.cwd.clone();
                    let depth = unit.depth + 1;
                    self.units.push(Unit::new(
                        text,
                        UnitSource::HandedShell {
                            name,
                            parent: unit_index,
                            invocation: inv_index,
                        },
                        cwd,
                        depth,
                        self.cx,
                    ));
                }
            }
            let home = self.home();
            let mut found = Vec::new();
            {
                let unit = &self.units[unit_index];
                for inv in &unit.view().invocations {
                    let path = script_path(inv).or_else(|| stdin_script_path(unit.view(), inv));
                    // A bare name in a folder the command put in front of `PATH`: the first
                    // candidate that holds a file is the script.
                    let path = path.or_else(|| {
                        let candidates = command_effects::scripts::path_candidates(inv);
                        if candidates.is_empty() {
                            return None;
                        }
                        let dir = unit.dir_of(inv, home.as_deref(), self.world)?;
                        let holds = |p: &String| {
                            let full = dirs::join(&dir, &expand_tilde(p, home.as_deref()));
                            match self.written_before(unit_index, inv.index, &full) {
                                Some(_) => true,
                                None => self.world.read_script(&full).is_ok(),
                            }
                        };
                        candidates.into_iter().find(holds)
                    });
                    if let Some(path) = path {
                        let Some(dir) = unit.dir_of(inv, home.as_deref(), self.world) else {
                            found.push((inv.index, path, None));
                            continue;
                        };
                        let full = dirs::join(&dir, &expand_tilde(&path, home.as_deref()));
                        found.push((inv.index, path, Some((full, dir))));
                    }
                }
            }
            for (inv_index, path, resolved) in found {
                if at_bound {
                    // A script that is not there cannot run: unseen, as above the bound.
                    let exists = resolved.as_ref().is_some_and(|(full, _)| {
                        match self.written_before(unit_index, inv_index, full) {
                            Some(_) => true,
                            None => match self.world.read_script(full) {
                                Ok(_) => true,
                                Err(e) => e.is_too_large(),
                            },
                        }
                    });
                    self.unread_scripts
                        .push(match exists || resolved.is_none() {
                            true => UnreadScript::past_bound(
                                path,
                                format!("more than {MAX_SCRIPT_DEPTH} scripts deep"),
                            ),
                            false => UnreadScript::unseen(path, "not found"),
                        });
                    continue;
                }
                if self.units.len() > MAX_SCRIPTS {
                    self.unread_scripts.push(UnreadScript::past_bound(
                        path,
                        format!("more than {MAX_SCRIPTS} scripts"),
                    ));
                    continue;
                }
                let Some((full, dir)) = resolved else {
                    self.unread_scripts.push(UnreadScript::unseen(
                        path,
                        "its directory is decided at run time",
                    ));
                    continue;
                };
                let read = match self.written_before(unit_index, inv_index, &full) {
                    Some(Some(text)) => Ok(text),
                    Some(None) => Err(LookupError(
                        "written by the command with text decided at run time".into(),
                    )),
                    None => self.world.read_script(&full),
                };
                match read {
                    Ok(text) if text.len() <= budget => {
                        budget -= text.len();
                        let depth = self.units[unit_index].depth + 1;
                        self.units.push(Unit::new(
                            text,
                            UnitSource::Script {
                                path: full,
                                parent: unit_index,
                                invocation: inv_index,
                            },
                            dir,
                            depth,
                            self.cx,
                        ));
                    }
                    Ok(_) => self.unread_scripts.push(UnreadScript::past_bound(
                        path,
                        format!("more than {SCRIPT_BUDGET} bytes of scripts in one command"),
                    )),
                    Err(e) if e.is_too_large() => self
                        .unread_scripts
                        .push(UnreadScript::past_bound(path, e.0)),
                    Err(e) => self.unread_scripts.push(UnreadScript::unseen(path, e.0)),
                }
            }
        }
    }
}

/// Everything the requirement modules read.
pub struct Analysis<'a> {
    pub cx: &'a Context,
    pub world: &'a dyn World,
    /// `units[0]` is the command; the rest are scripts run by path.
    pub units: &'a [Unit],
    pub unread_scripts: &'a [UnreadScript],
    parsed: &'a Units<'a>,
    ops: OnceCell<Vec<Op<'a>>>,
    /// Push plans by (unit, invocation): G3 and G4 both read a push's plan, and its remote
    /// URLs are looked up in the repository's config.
    push_plans: std::cell::RefCell<Vec<(OpKey, Rc<PushPlan>)>>,
}

/// An operation by (unit, invocation).
type OpKey = (usize, usize);

impl<'a> Analysis<'a> {
    /// The analysis of parsed units (see [`Units::build`]).
    pub fn new(parsed: &'a Units<'a>) -> Analysis<'a> {
        Analysis {
            cx: parsed.cx,
            world: parsed.world,
            units: &parsed.units,
            unread_scripts: &parsed.unread_scripts,
            parsed,
            ops: OnceCell::new(),
            push_plans: Default::default(),
        }
    }

    /// The plan of the push `op` runs (`call` is its git call), worked out once per analysis.
    pub fn push_plan(&self, op: &Op<'_>, call: &command_effects::git::GitCall<'_>) -> Rc<PushPlan> {
        let key = (op.unit, op.invocation);
        if let Some((_, p)) = self.push_plans.borrow().iter().find(|(k, _)| *k == key) {
            return p.clone();
        }
        let plan = Rc::new(crate::git_push::plan(
            call,
            op.dir.as_deref(),
            self.world,
            &op.head,
        ));
        self.push_plans.borrow_mut().push((key, plan.clone()));
        plan
    }

    /// The branch rules G4 asks: the override given to [`Units::with_rules`], else the world's.
    pub fn rules(&self) -> &'a dyn Rules {
        self.parsed.rules.unwrap_or_else(|| self.world.rules())
    }

    /// gh's aliases (read once).
    pub fn gh_aliases(&self) -> &'a BTreeMap<String, String> {
        self.parsed.gh_aliases()
    }

    /// Every git/gh/HTTP operation of every unit (read once).
    pub fn ops(&self) -> &[Op<'a>] {
        self.ops.get_or_init(|| operations::collect(self))
    }

    /// Where operations allocate the words they make up (expanded aliases).
    pub(crate) fn arena(&self) -> &'a bumpalo::Bump {
        &self.parsed.arena
    }

    /// Every invocation of every unit, with its unit.
    pub fn invocations(&self) -> impl Iterator<Item = (&'a Unit, &'a Invocation<'a>)> {
        self.units
            .iter()
            .flat_map(|u| u.view().invocations.iter().map(move |i| (u, i)))
    }

    pub fn home(&self) -> Option<PathBuf> {
        self.cx.home()
    }
}
