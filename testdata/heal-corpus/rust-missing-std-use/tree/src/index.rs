//! The index: for each word, the documents holding it and how often.

use std::collections::BTreeSet;

use crate::tokens::words;

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub doc: usize,
    /// How many times the query's words occur in the document.
    pub hits: usize,
}

/// An inverted index over documents numbered in the order they are added.
#[derive(Default)]
pub struct Index {
    postings: HashMap<String, HashMap<usize, usize>>,
    docs: usize,
}

impl Index {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a document and returns its number.
    pub fn add(&mut self, text: &str) -> usize {
        let doc = self.docs;
        self.docs += 1;
        for w in words(text) {
            *self.postings.entry(w).or_default().entry(doc).or_default() += 1;
        }
        doc
    }

    /// Returns the documents holding every word of query, most hits first,
    /// then by document number.
    pub fn search(&self, query: &str) -> Vec<Match> {
        let terms: BTreeSet<String> = words(query).collect();
        let mut found: Option<HashMap<usize, usize>> = None;
        for t in &terms {
            let Some(p) = self.postings.get(t) else { return Vec::new() };
            found = Some(match found {
                None => p.clone(),
                Some(acc) => acc.into_iter().filter_map(|(d, n)| p.get(&d).map(|m| (d, n + m))).collect(),
            });
        }
        let mut out: Vec<Match> = found.unwrap_or_default().into_iter().map(|(doc, hits)| Match { doc, hits }).collect();
        out.sort_by(|a, b| b.hits.cmp(&a.hits).then(a.doc.cmp(&b.doc)));
        out
    }
}
