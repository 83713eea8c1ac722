//! `shell-syntax`: a bash lexer and parser built for judging commands, and the command view
//! that guards read.
//!
//! - [`parse`] / [`parse_with`]: text to a typed [`ast::Script`] with byte spans and quoting
//!   kept, plus the first [`SyntaxError`] (the tree holds the part bash would have run).
//! - [`commands`] / [`commands_with`]: every simple command bash would run, wrappers unwrapped,
//!   with its arguments, assignments, redirections, `cd`s and context ([`view`]).
//! - [`printer`]: a stable text rendering of trees and views for snapshots and `explain`.
//!
//! No I/O anywhere; every input-derived bound is enforced by [`Limits`] / [`ViewOptions`].

pub mod ast;
mod error;
mod name_set;
mod parser;
pub mod printer;
pub mod view;
mod word_value;

pub use ast::*;
pub use error::{ErrorKind, Limits, SyntaxError};
pub use name_set::NameSet;
pub use view::{commands, commands_with, Arg, CommandView, Invocation, Program, ViewOptions};

self_cell::self_cell!(
    /// The arena and the tree that borrows it.
    struct Tree {
        owner: bumpalo::Bump,
        #[covariant]
        dependent: Script,
    }
);

/// The result of parsing: the tree of what bash would run, and the first error if any.
///
/// The tree lives in an arena this value owns (see [`ast`]); [`Parsed::script`] borrows it.
/// The command view parses nested scripts (`eval`, `bash -c`) into the same arena, so the
/// views it returns can borrow them too.
pub struct Parsed {
    tree: Recycled,
    pub error: Option<SyntaxError>,
}

/// The tree, whose arena goes back to [`SPARE_ARENA`] when it is dropped (a wrapper, so
/// `Parsed` itself has no `Drop` and its `error` can be moved out).
struct Recycled(Tree);

/// The largest emptied arena kept for the next parse on this thread (bytes).
const MAX_SPARE_ARENA: usize = 128 << 20;

thread_local! {
    /// The arena of the last dropped parse, emptied, for the next parse on this thread: its
    /// pages are already mapped, as a heap allocator's freed blocks would be. Page faults on
    /// fresh memory were a third of a large parse's time on the test machines.
    static SPARE_ARENA: std::cell::RefCell<Option<bumpalo::Bump>> =
        const { std::cell::RefCell::new(None) };
}

/// An arena for a parse: the spare one if it can hold the tree of `src` in its one chunk,
/// else a new one sized for `src` (a small spare would grow by doubling, leaving a chain of
/// part-filled chunks and about half again the memory).
fn take_arena(src: &str, limits: &Limits) -> bumpalo::Bump {
    let need = parser::arena_estimate(src, limits);
    let spare = SPARE_ARENA
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten()
        .filter(|a| a.chunk_capacity() >= need);
    spare.unwrap_or_else(|| bumpalo::Bump::with_capacity(need))
}

impl Drop for Recycled {
    fn drop(&mut self) {
        let empty = Tree::new(bumpalo::Bump::new(), |_| Script::default());
        let mut arena = std::mem::replace(&mut self.0, empty).into_owner();
        arena.reset();
        if arena.allocated_bytes() <= MAX_SPARE_ARENA {
            let _ = SPARE_ARENA.try_with(|s| {
                if let Ok(mut s) = s.try_borrow_mut() {
                    *s = Some(arena);
                }
            });
        }
    }
}

impl Parsed {
    /// The tree of what bash would run.
    pub fn script(&self) -> &Script<'_> {
        self.tree.0.borrow_dependent()
    }
    /// Bytes used in the arena (the tree, the copy of the source, and nested scripts the view
    /// parsed): for memory figures.
    pub fn arena_used(&self) -> usize {
        let arena = self.arena();
        arena.allocated_bytes() - arena.chunk_capacity()
    }
    /// The arena the tree lives in (the view allocates nested parses there).
    pub(crate) fn arena(&self) -> &bumpalo::Bump {
        self.tree.0.borrow_owner()
    }
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parsed")
            .field("script", self.script())
            .field("error", &self.error)
            .finish()
    }
}

impl PartialEq for Parsed {
    fn eq(&self, other: &Self) -> bool {
        self.script() == other.script() && self.error == other.error
    }
}

/// Parse with the default [`Limits`].
pub fn parse(src: &str) -> Parsed {
    parse_with(src, &Limits::default())
}

/// Parse with explicit limits.
pub fn parse_with(src: &str, limits: &Limits) -> Parsed {
    let mut error = None;
    let tree = Tree::new(take_arena(src, limits), |arena| {
        let (script, e) = parser::parse_in(arena, src, limits);
        error = e;
        script
    });
    Parsed {
        tree: Recycled(tree),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arena_of_a_dropped_parse_is_reused_only_when_it_is_large_enough() {
        let limits = Limits::default();
        let big = "git status --short && echo done\n".repeat(4096);
        let need = parser::arena_estimate(&big, &limits);

        drop(parse("echo hi"));
        let spare_small = SPARE_ARENA.with(|s| s.borrow().as_ref().map(|a| a.chunk_capacity()));
        assert!(spare_small.is_some_and(|c| c < need), "{spare_small:?}");
        // The small spare is passed over: the big parse gets one chunk sized for it.
        let arena = take_arena(&big, &limits);
        assert!(arena.chunk_capacity() >= need);
        drop(arena);

        let p = parse(&big);
        assert!(p.error.is_none());
        drop(p);
        let spare_big = SPARE_ARENA.with(|s| s.borrow().as_ref().map(|a| a.chunk_capacity()));
        assert!(spare_big.is_some_and(|c| c >= need), "{spare_big:?}");
        // A later parse of either size reuses it, emptied.
        let p = parse("echo hi");
        assert!(p.arena().chunk_capacity() + p.arena_used() >= need);
        assert!(SPARE_ARENA.with(|s| s.borrow().is_none()));
    }
}
