//! Versions and version requirements, with Cargo's rules.

mod req;
mod version;

pub use req::{Comparator, Op, VersionReq};
pub use version::{ParseError, Version};
