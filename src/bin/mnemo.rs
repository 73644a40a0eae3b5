//! The `mnemo` command-line tool (placeholder replaced in this change).
fn main() {}
