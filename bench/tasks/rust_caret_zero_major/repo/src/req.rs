use std::str::FromStr;

use crate::version::{ParseError, Version};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Exact,
    Greater,
    GreaterEq,
    Less,
    LessEq,
    Tilde,
    Caret,
}

/// One operator and version, such as `>=1.2.3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparator {
    pub op: Op,
    pub version: Version,
}

impl Comparator {
    pub fn matches(&self, v: &Version) -> bool {
        let want = self.version;
        match self.op {
            Op::Exact => *v == want,
            Op::Greater => *v > want,
            Op::GreaterEq => *v >= want,
            Op::Less => *v < want,
            Op::LessEq => *v <= want,
            Op::Tilde => *v >= want && v.major == want.major && v.minor == want.minor,
            Op::Caret => *v >= want && v.major == want.major,
        }
    }
}

impl FromStr for Comparator {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (op, rest) = [(">=", Op::GreaterEq), ("<=", Op::LessEq), (">", Op::Greater), ("<", Op::Less),
                          ("=", Op::Exact), ("~", Op::Tilde), ("^", Op::Caret)]
            .iter()
            .find_map(|(prefix, op)| text.strip_prefix(prefix).map(|rest| (*op, rest)))
            .unwrap_or((Op::Caret, text));
        Ok(Comparator { op, version: rest.parse()? })
    }
}

/// Comparators separated by commas; a version matches when it matches every one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReq {
    pub comparators: Vec<Comparator>,
}

impl VersionReq {
    pub fn matches(&self, v: &Version) -> bool {
        self.comparators.iter().all(|c| c.matches(v))
    }
}

impl FromStr for VersionReq {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim().is_empty() {
            return Err(ParseError("empty version requirement".to_string()));
        }
        let comparators = text.split(',').map(str::parse).collect::<Result<Vec<_>, _>>()?;
        Ok(VersionReq { comparators })
    }
}
