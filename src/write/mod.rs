//! The only code that changes the work tree or the index.
