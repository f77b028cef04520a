//! The `firn` command line.

fn main() {}
