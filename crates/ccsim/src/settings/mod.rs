//! The scenario format's vocabulary: the schema of a scenario file (serde types), the units
//! its quantities are written in, the profiles that choose defaults, and the errors that name
//! a field. It knows nothing of the simulator, so every layer that reads a setting (queue
//! disciplines, congestion controls, router mechanisms, the scenario builder) depends on it
//! and not on the layers above.

pub mod error;
pub mod external;
pub mod profile;
pub mod schema;
pub mod table;
pub mod units;
