#![deny(warnings)]

use tally::{count, top};

#[test]
fn counts_each_word() {
    let counts = count("the cat and the hat");
    assert_eq!(counts["the"], 2);
    assert_eq!(counts.get("dog"), None);
}

#[test]
fn top_breaks_ties_alphabetically() {
    let text = "b a c a b";
    let expected = vec![("a".to_string(), 2), ("b".to_string(), 2)];
    let words = top(text, 2);
    assert_eq!(top(text, 2), expected);
}

#[test]
#[should_panic]
fn missing_word_panics() {
    let counts = count("");
    let _ = counts["nothing"];
}
