//! Wired links.
