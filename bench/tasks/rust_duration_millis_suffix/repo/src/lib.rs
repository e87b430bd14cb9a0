//! Settings for our services, read from `key = value` files.

use std::fmt;
use std::time::Duration;

/// What is wrong with a setting.
#[derive(Debug, PartialEq, Eq)]
pub enum ParseError {
    /// A duration without a unit, or with one we do not know.
    UnknownUnit(String),
    /// A duration whose number does not parse.
    InvalidNumber(String),
    /// A line that is not `key = value`, with its line number.
    BadLine(usize),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownUnit(s) => write!(f, "duration {s:?} needs a unit: ms, s, m or h"),
            ParseError::InvalidNumber(s) => write!(f, "invalid number in duration {s:?}"),
            ParseError::BadLine(n) => write!(f, "line {n}: expected `key = value`"),
        }
    }
}

const UNITS: [(&str, u64); 4] = [("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("ms", 1)];

/// A duration such as `30s`, `5m`, `2h` or `250ms`.
pub fn parse_duration(text: &str) -> Result<Duration, ParseError> {
    let text = text.trim();
    for (unit, millis) in UNITS {
        if let Some(number) = text.strip_suffix(unit) {
            let n: u64 = number.trim().parse().map_err(|_| ParseError::InvalidNumber(text.to_string()))?;
            return Ok(Duration::from_millis(n * millis));
        }
    }
    Err(ParseError::UnknownUnit(text.to_string()))
}

/// The settings a service reads at start-up.
#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    pub timeout: Duration,
    pub retry_delay: Duration,
    pub name: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { timeout: Duration::from_secs(30), retry_delay: Duration::from_secs(1), name: "service".into() }
    }
}

/// Settings from a file's text: `key = value` lines, `#` comments and blank lines; unknown keys are ignored.
pub fn parse_settings(text: &str) -> Result<Settings, ParseError> {
    let mut settings = Settings::default();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once('=').ok_or(ParseError::BadLine(index + 1))?;
        match key.trim() {
            "timeout" => settings.timeout = parse_duration(value)?,
            "retry_delay" => settings.retry_delay = parse_duration(value)?,
            "name" => settings.name = value.trim().to_string(),
            _ => {}
        }
    }
    Ok(settings)
}
