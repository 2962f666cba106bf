//! Repairs that several dialects share: each reads one kind of damaged hunk text the way
//! its writer meant it, decides only from the text and the file it is about, and names
//! the notice kind it reports.

pub mod unprefixed;
