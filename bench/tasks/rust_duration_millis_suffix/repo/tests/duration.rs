use std::time::Duration;

use svcconf::{parse_duration, parse_settings, ParseError, Settings};

#[test]
fn seconds_minutes_hours() {
    assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
    assert_eq!(parse_duration(" 5m "), Ok(Duration::from_secs(300)));
    assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
}

#[test]
fn milliseconds() {
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_duration("1500 ms"), Ok(Duration::from_millis(1500)));
}

#[test]
fn a_number_without_a_unit_is_an_error() {
    assert_eq!(parse_duration("30"), Err(ParseError::UnknownUnit("30".into())));
    assert_eq!(parse_duration("30d"), Err(ParseError::UnknownUnit("30d".into())));
}

#[test]
fn a_bad_number_is_an_error() {
    assert_eq!(parse_duration("fives"), Err(ParseError::InvalidNumber("fives".into())));
    assert_eq!(parse_duration("-1m"), Err(ParseError::InvalidNumber("-1m".into())));
}

#[test]
fn settings_from_a_file() {
    let text = "# payments\nname = payments\ntimeout = 2m\n\nretry_delay = 10s\ncolour = blue\n";
    let expected = Settings { timeout: Duration::from_secs(120), retry_delay: Duration::from_secs(10), name: "payments".into() };
    assert_eq!(parse_settings(text), Ok(expected));
}

#[test]
fn settings_with_a_retry_delay_in_milliseconds() {
    let settings = parse_settings("timeout = 5s\nretry_delay = 250ms\n").unwrap();
    assert_eq!(settings.retry_delay, Duration::from_millis(250));
    assert_eq!(settings.timeout, Duration::from_secs(5));
}

#[test]
fn defaults_and_bad_lines() {
    assert_eq!(parse_settings(""), Ok(Settings::default()));
    assert_eq!(parse_settings("name = a\ntimeout 5s\n"), Err(ParseError::BadLine(2)));
}
