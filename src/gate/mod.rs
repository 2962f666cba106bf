//! The gate between plan and write: policy and hooks; only it makes the `Approved` token.
