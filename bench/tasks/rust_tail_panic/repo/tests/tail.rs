use logtail::{count_matching, tail};

const LOG: &str = "one\ntwo\nthree\nfour\nfive\n";

#[test]
fn tail_of_a_longer_text() {
    assert_eq!(tail(LOG, 2), vec!["four", "five"]);
}

#[test]
fn tail_zero_is_empty() {
    assert!(tail(LOG, 0).is_empty());
}

#[test]
fn tail_longer_than_the_text_is_all_of_it() {
    assert_eq!(tail(LOG, 20), vec!["one", "two", "three", "four", "five"]);
    assert!(tail("", 3).is_empty());
}

#[test]
fn counts_matching_lines() {
    assert_eq!(count_matching(LOG, "o"), 3);
}
