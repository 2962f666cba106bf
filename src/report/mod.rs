//! The one Report, rendered as human text and as JSON.
