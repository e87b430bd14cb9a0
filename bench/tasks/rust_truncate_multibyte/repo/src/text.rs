/// `text` cut to at most `max` characters, the last of them an ellipsis when it was cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    if max == 0 {
        return String::new();
    }
    format!("{}…", &text[..max - 1])
}

/// `text` followed by spaces up to `width` characters; longer text is left as it is.
pub fn pad(text: &str, width: usize) -> String {
    let count = text.chars().count();
    let mut out = text.to_string();
    out.extend(std::iter::repeat(' ').take(width.saturating_sub(count)));
    out
}

/// The first letter of each word, upper case: "Ada Lovelace" -> "AL".
pub fn initials(name: &str) -> String {
    name.split_whitespace()
        .filter_map(|word| word.chars().next())
        .flat_map(char::to_uppercase)
        .collect()
}
