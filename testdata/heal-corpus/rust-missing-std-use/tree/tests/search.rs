use invidx::{Index, Match};

#[test]
fn every_word_must_match_and_hits_rank() {
    let mut idx = Index::new();
    let a = idx.add("The quick brown fox");
    let b = idx.add("A quick fox, a quick dog");
    idx.add("Lazy dogs sleep");
    assert_eq!(
        idx.search("quick FOX"),
        vec![Match { doc: b, hits: 3 }, Match { doc: a, hits: 2 }]
    );
    assert!(idx.search("fox cat").is_empty());
}

#[test]
fn words_are_lower_cased() {
    let w: Vec<String> = invidx::words("Hello, World!").collect();
    assert_eq!(w, ["hello", "world"]);
}
