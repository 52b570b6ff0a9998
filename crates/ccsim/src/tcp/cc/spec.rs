//! A congestion control as a scenario names it: its registration (name, the loss recovery it
//! pairs with, what it needs of ECN, its own keys and its builder) and what the builder sees.
//!
//! `tcp.variant = "NAME"` chooses the registration; its own keys are in the table
//! `tcp.NAME` (`tcp.cubic.beta = 0.8`), read by a serde struct in the algorithm's own file
//! ([`read`](crate::settings::table::read) gives it the keys it declares); the keys every
//! algorithm shares (`ssthresh_from`, `ca_increase`, `full_ack`) are the window's, in
//! [`CcContext::window`]. The registry ([`registry`](super::registry)) holds one registration
//! per algorithm and the scenario builder dispatches through it, naming none.

use super::{CcConfig, NewRenoConfig};
use crate::settings::profile::Profile;
use crate::settings::table::{SettingError, Table};
use std::fmt;

/// Loss recovery of the sender: what a new ACK in fast recovery means. The window's
/// arithmetic is the controller's; `cc/mod.rs` says where the two differ. With SACK, RFC
/// 6675's recovery runs instead of either.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 5681: any new ACK ends fast recovery.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole and stay in fast recovery, and
    /// duplicates of data sent before `recover` start no second fast retransmit.
    NewReno,
}

/// What an algorithm needs of ECN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnUse {
    /// As the scenario says (`tcp.ecn`): RFC 3168's echo, off by default.
    Optional,
    /// On (the scenario may not turn it off), with the receiver echoing every packet's CE
    /// exactly and retransmissions ECN-capable: DCTCP's needs (RFC 8257 3.2).
    PerPacket,
    /// On (the scenario may not turn it off), every packet ECT(1), the L4S identifier (RFC
    /// 9331 4.1), retransmissions included, and Accurate ECN feedback (RFC 9768) asked for in
    /// the handshake: a scalable congestion control's needs (RFC 9330, the L4S
    /// architecture). A receiver without AccECN gives RFC 3168's feedback instead, one
    /// without ECN none (`tcp/accecn.rs`, negotiation).
    L4s,
}

/// What a controller's builder sees besides its own keys.
#[derive(Clone, Debug, PartialEq)]
pub struct CcContext {
    /// The window's rules, from the keys every algorithm shares and the profile's defaults.
    pub window: NewRenoConfig,
    /// `tcp.full_ack` was given (an algorithm that leaves recovery otherwise refuses it).
    pub full_ack_given: bool,
    /// The scenario's profile, for an algorithm's own defaults that follow it.
    pub profile: Profile,
}

/// One congestion control, as the registry holds it.
#[derive(Clone, Copy)]
pub struct Registration {
    /// The name `tcp.variant = "..."` selects it by, and its table's name.
    pub name: &'static str,
    /// The loss recovery the sender runs with it.
    pub recovery: Recovery,
    /// What it needs of ECN.
    pub ecn: EcnUse,
    /// Every key of its own table.
    pub keys: fn() -> Vec<&'static str>,
    /// Reads its keys from its table (holding no others), resolves them and builds its
    /// configuration.
    pub build: fn(&Table, &CcContext) -> Result<CcConfig, SettingError>,
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Registration").field("name", &self.name).field("keys", &(self.keys)()).finish()
    }
}

/// The variant of a TCP flow whose table names none.
pub const DEFAULT_VARIANT: &str = "newreno";

/// The registration `name` selects.
pub fn find(name: &str) -> Option<&'static Registration> {
    super::registry().find(|r| r.name == name)
}

/// Builds the configuration of `reg` from `table`, its own keys, with `ctx`; a key it does
/// not take is named with the keys it does. An error's key is relative to the `tcp` table:
/// `cubic.beta` for a key of the variant's own table, `full_ack` for a shared one.
pub fn build(reg: &Registration, table: &Table, ctx: &CcContext) -> Result<CcConfig, SettingError> {
    let own = (reg.keys)();
    let under = |key: &str| format!("{}.{key}", reg.name);
    if let Some(key) = table.keys().find(|k| !own.contains(&k.as_str())) {
        let takes = if own.is_empty() { "none".to_string() } else { own.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ") };
        return Err(SettingError::new(under(key), format!("unknown field `{key}`: variant {:?} takes {takes}", reg.name)));
    }
    (reg.build)(table, ctx).map_err(|e| if own.contains(&e.key.as_str()) { SettingError::new(under(&e.key), e.message) } else { e })
}

#[cfg(test)]
mod tests {
    use super::super::Controller;
    use super::*;

    fn ctx() -> CcContext {
        CcContext { window: NewRenoConfig::default(), full_ack_given: false, profile: Default::default() }
    }

    #[test]
    fn every_registered_controller_builds_with_its_defaults_and_names_are_unique() {
        let mut names: Vec<&str> = super::super::registry().map(|r| r.name).collect();
        for reg in super::super::registry() {
            let cfg = build(reg, &Table::new(), &ctx()).unwrap_or_else(|e| panic!("{}: {e}", reg.name));
            let cc = cfg.build(1000, 2, u32::MAX / 2);
            assert_eq!(cc.window().cwnd, 2000, "{}", reg.name);
        }
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a name selects one controller");
        assert_eq!(find(DEFAULT_VARIANT).map(|r| r.name), Some("newreno"));
    }

    #[test]
    fn an_unknown_key_names_the_keys_the_variant_takes() {
        let t: Table = "cc = 0.4".parse().unwrap();
        let e = build(find("cubic").unwrap(), &t, &ctx()).unwrap_err();
        assert_eq!(e.key, "cubic.cc");
        assert!(e.message.starts_with("unknown field `cc`: variant \"cubic\" takes `c`, `beta`"), "{e}");
        let e = build(find("reno").unwrap(), &t, &ctx()).unwrap_err();
        assert_eq!(e.message, "unknown field `cc`: variant \"reno\" takes none");
    }
}
