//! TCP.
