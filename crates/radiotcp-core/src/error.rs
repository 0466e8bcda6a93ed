//! Errors that cross the public API. User mistakes are values, never panics.

use std::fmt;

/// A configuration value the simulation cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the offending key, mirroring the TOML structure (`links.1.rate_kbps`).
    pub key: String,
    /// The value as given.
    pub value: String,
    /// What would have been accepted (for an unknown key: the known ones).
    pub allowed: String,
    /// The key itself is not one the configuration has.
    pub unknown_key: bool,
}

impl ConfigError {
    pub fn new(key: impl Into<String>, value: impl ToString, allowed: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            value: value.to_string(),
            allowed: allowed.into(),
            unknown_key: false,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.unknown_key {
            write!(
                f,
                "{} = {}: unknown key; {}",
                self.key, self.value, self.allowed
            )
        } else if self.value.is_empty() {
            write!(f, "{}: {}", self.key, self.allowed)
        } else {
            write!(
                f,
                "{} = {}: expected {}",
                self.key, self.value, self.allowed
            )
        }
    }
}

impl std::error::Error for ConfigError {}

/// Why a run did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    Config(ConfigError),
    /// The caller's stop check asked the run to end (e.g. Ctrl-C in Python).
    Interrupted,
    /// Writing an output of the run failed (the pcap export).
    Io(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Config(e) => e.fmt(f),
            RunError::Interrupted => write!(f, "run interrupted"),
            RunError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        RunError::Config(e)
    }
}

/// An entity parameter out of its domain, named by the entity's own field (`g`,
/// `levels.2.mean_sojourn`): entities know nothing of the configuration's key paths, and the
/// configuration layer adds them ([`ParamError::at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    pub field: String,
    pub value: String,
    pub allowed: String,
}

impl ParamError {
    pub fn new(field: impl Into<String>, value: impl ToString, allowed: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// The same problem as a [`ConfigError`] under the key path `prefix`.
    pub fn at(self, prefix: &str) -> ConfigError {
        ConfigError {
            key: format!("{prefix}.{}", self.field),
            value: self.value,
            allowed: self.allowed,
            unknown_key: false,
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {}: expected {}",
            self.field, self.value, self.allowed
        )
    }
}

impl std::error::Error for ParamError {}
