//! Text helpers for the member table.

mod text;

pub use text::{initials, pad, truncate};

/// One row of the member table: the name cut to `width` characters and padded, then the initials.
pub fn row(name: &str, width: usize) -> String {
    format!("{} {}", pad(&truncate(name, width), width), initials(name))
}
