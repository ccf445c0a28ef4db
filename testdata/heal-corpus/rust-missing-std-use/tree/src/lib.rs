//! invidx: a small in-memory inverted index.
//!
//! Documents are split into lower-cased words; a query returns the
//! documents holding every word of it, best match first.

mod index;
mod tokens;

pub use index::{Index, Match};
pub use tokens::words;
