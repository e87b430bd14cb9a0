use plugver::{Version, VersionReq};

fn matches(req: &str, version: &str) -> bool {
    let req: VersionReq = req.parse().unwrap();
    req.matches(&version.parse::<Version>().unwrap())
}

#[test]
fn versions_parse_and_order() {
    assert_eq!("1.10.0".parse::<Version>().unwrap(), Version::new(1, 10, 0));
    assert!(Version::new(1, 10, 0) > Version::new(1, 9, 9));
    assert!("1.2".parse::<Version>().is_err());
    assert!("1.x.0".parse::<Version>().is_err());
}

#[test]
fn exact_and_ranges() {
    assert!(matches("=1.2.3", "1.2.3") && !matches("=1.2.3", "1.2.4"));
    assert!(matches(">=1.2.3, <2.0.0", "1.9.9") && !matches(">=1.2.3, <2.0.0", "2.0.0"));
    assert!(matches(">1.0.0", "1.0.1") && matches("<=1.0.0", "1.0.0"));
}

#[test]
fn tilde_keeps_the_minor() {
    assert!(matches("~1.2.3", "1.2.9"));
    assert!(!matches("~1.2.3", "1.3.0") && !matches("~1.2.3", "1.2.2"));
}

#[test]
fn caret_keeps_the_major() {
    assert!(matches("^1.2.3", "1.2.3") && matches("^1.2.3", "1.9.0"));
    assert!(!matches("^1.2.3", "2.0.0") && !matches("^1.2.3", "1.2.2"));
    assert!(matches("1.2.3", "1.4.0"), "a bare version is a caret requirement");
}

#[test]
fn caret_on_zero_major_keeps_the_minor() {
    assert!(matches("^0.4.1", "0.4.1") && matches("^0.4.1", "0.4.9"));
    assert!(!matches("^0.4.1", "0.5.0"));
    assert!(!matches("0.4.1", "0.5.0"), "a bare version is a caret requirement");
}

#[test]
fn caret_on_zero_zero_is_exact() {
    assert!(matches("^0.0.3", "0.0.3"));
    assert!(!matches("^0.0.3", "0.0.4") && !matches("^0.0.3", "0.1.0"));
}

#[test]
fn empty_requirement_is_an_error() {
    assert!("".parse::<VersionReq>().is_err() && " ".parse::<VersionReq>().is_err());
}
