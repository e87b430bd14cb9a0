//! Reading the end of log files.

/// The last `n` lines of `text`, oldest first.
pub fn tail(text: &str, n: usize) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len() - n..].to_vec()
}

/// How many lines of `text` contain `needle`.
pub fn count_matching(text: &str, needle: &str) -> usize {
    text.lines().filter(|line| line.contains(needle)).count()
}
