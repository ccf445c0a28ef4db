//! Count words in text, most frequent first.

use std::collections::HashMap;

/// Counts the words of `text`, split on whitespace and lower-cased.
pub fn count(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// Returns the `n` most frequent words, ties in alphabetical order.
pub fn top(text: &str, n: usize) -> Vec<(String, usize)> {
    let mut all: Vec<(String, usize)> = count(text).into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all.truncate(n);
    all
}
