//! Word frequencies of plain text.

use std::collections::HashMap;

/// Counts each word of `text`, case-insensitively; words are runs of
/// alphanumeric characters.
pub fn counts(text: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *out.entry(w.to_string()).or_insert(0) += 1;
    }
    out
}

/// The most frequent word, lower-case; ties go to the word first in
/// alphabetical order.
pub fn top_word(text: &str) -> Option<String> {
    let mut all: Vec<_> = counts(text).into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    all.into_iter().next().map(|(w, _)| w)
}
