//! wordfreq: print the most frequent words of standard input.

use std::io::{self, Read};

/// Returns the n most frequent lower-cased words, most frequent first,
/// ties in alphabetical order.
fn top_words(text: &str, n: usize) -> Vec<(String, usize)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *counts.entry(w.to_lowercase()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

fn main() {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text).expect("read stdin");
    for (w, c) in top_words(&text, 10) {
        println!("{c:6} {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words() {
        let got = top_words("The cat and the hat. THE end", 2);
        assert_eq!(got, vec![("the".to_string(), 3), ("and".to_string(), 1)]);
    }
}
