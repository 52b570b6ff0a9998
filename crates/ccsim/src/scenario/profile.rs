//! Profiles: one switch that chooses a set of defaults. `rfc` (the default) follows the RFCs
//! and the papers' algorithms as written; `ns2` follows ns-2.35's agents and queues where
//! they differ, so that a reproduction of a paper simulated in ns-2 simulates what ns-2
//! simulated. Every member of the set is also a parameter of its own, and a value the
//! scenario sets explicitly always wins over the profile. `docs/profiles.md` lists each
//! difference: the parameter, the RFC behaviour, ns-2's variable and default, and what it
//! changes.

use serde::Deserialize;

/// The `profile` key at the top of a scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The RFCs' behaviour.
    #[default]
    Rfc,
    /// ns-2.35's defaults.
    Ns2,
}

impl Profile {
    /// The name as written in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Ns2 => "ns2",
        }
    }

    /// `rfc` under the RFC profile, `ns2` under ns-2's.
    pub fn pick<T>(self, rfc: T, ns2: T) -> T {
        match self {
            Profile::Rfc => rfc,
            Profile::Ns2 => ns2,
        }
    }
}
