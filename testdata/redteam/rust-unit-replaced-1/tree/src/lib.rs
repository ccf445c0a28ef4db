//! Walks nested directories with a depth limit.

/// The deepest a walk descends, counting the root as depth 0.
pub const MAX_DEPTH: usize = 32;
/// How many entries a walk reports before it stops.
pub const MAX_ENTRIES: usize = 100_000;
