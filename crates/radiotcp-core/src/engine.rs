//! Event queue, timers and RNG streams.
