//! Three-way merges through `git apply --3way`, run against a scratch tree and a temporary index.
