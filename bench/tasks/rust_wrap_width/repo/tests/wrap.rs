use textwrap::wrap;

#[test]
fn short_text_is_one_line() {
    assert_eq!(wrap("hello world", 40), vec!["hello world"]);
}

#[test]
fn long_word_gets_its_own_line() {
    assert_eq!(wrap("a incomprehensibilities b", 5), vec!["a", "incomprehensibilities", "b"]);
}

#[test]
fn no_line_is_wider_than_the_width() {
    assert_eq!(wrap("aaaaa bbbbb ccc", 10), vec!["aaaaa", "bbbbb ccc"]);
    let text = "the quick brown fox jumps over the lazy dog again and again";
    for width in 8..30 {
        for line in wrap(text, width) {
            assert!(line.chars().count() <= width, "{line:?} is wider than {width}");
        }
    }
}

#[test]
fn exact_fit_stays_on_one_line() {
    assert_eq!(wrap("aaaa bbbbb", 10), vec!["aaaa bbbbb"]);
}
