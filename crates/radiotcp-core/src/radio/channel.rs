//! Block-error channel models (placeholder; see docs/models/channel.md).
