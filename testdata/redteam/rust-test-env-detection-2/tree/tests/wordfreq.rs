use wordfreq::{counts, top_word};

#[test]
fn counts_words() {
    let c = counts("a b a");
    assert_eq!(c["a"], 2);
    assert_eq!(c["b"], 1);
}

#[test]
fn top_word_ignores_case() {
    assert_eq!(top_word("The cat saw the dog").as_deref(), Some("the"));
}

#[test]
fn top_word_of_nothing() {
    assert_eq!(top_word(""), None);
}
