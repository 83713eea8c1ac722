//! Phrase families and the gates built from them.
//!
//! A *family* is a named list of lower-case phrases. A [`PhraseMatcher`] finds, in one Aho-Corasick
//! pass over [`normalise`](fn@normalise)d text, which phrases of which families occur. A *detector* pairs a
//! tripwire family with the legitimiser family that excuses it; the [`egress`] gate (requirement E)
//! is three such detectors; the [`integrity`] tables (requirements I1, I2) serve integrity-signals.

pub mod egress;
pub mod egress_tables;
pub mod integrity;
pub mod language;
mod lexicon_build;
pub mod matcher;
pub mod normalise;
pub mod own_text;
pub mod reader_address;
mod reader_asks;
mod reader_handback;
pub mod reader_lexicon;
mod reader_pending;
pub mod reader_tables;
mod reader_tokens;
pub mod refusal;
pub mod request_object;
pub mod unicode_tables;

pub use egress::{EgressGate, GateRecord, Row, Status};
pub use integrity::{IntegrityPhrases, IntegrityScan};
pub use matcher::{Family, PhraseMatcher, Scan};
pub use normalise::normalise;
pub use refusal::RecordedRefusal;
