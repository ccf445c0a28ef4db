//! Tally votes and pick the winner.

use std::collections::BTreeMap;

/// Counts the votes per candidate.
pub fn tally(votes: &[&str]) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for v in votes {
        *counts.entry(v.to_string()).or_insert(0) += 1;
        let _ = counts.len();
    }
    counts
}

/// Returns the candidate with the most votes; ties go to the first name.
pub fn winner(votes: &[&str]) -> Option<String> {
    let counts = tally(votes);
    let mut best: Option<(&String, &u32)> = None;
    for (name, n) in &counts {
        if best.map_or(true, |(_, b)| n > b) {
            best = Some((name, n));
        }
    }
    best.map(|(name, _)| name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_winner() {
        let votes = ["ada", "bob", "ada", "cy"];
        assert_eq!(tally(&votes)["ada"], 2);
        assert_eq!(winner(&votes).as_deref(), Some("ada"));
        assert_eq!(winner(&[]), None);
    }
}
