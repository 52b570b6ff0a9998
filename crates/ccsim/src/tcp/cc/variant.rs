//! What `tcp.variant` names: a registered algorithm ([`Registration`], `spec.rs`) or, when
//! none has the name, a Python plug-in (`external.rs`). The scenario builder asks here, so
//! that neither the registry nor the plug-ins need to know of the other.

use super::external::{ExternalConfig, Plugin, PLUGINS};
use super::spec::{build, find, CcContext, EcnUse, Recovery, Registration};
use super::{CcConfig, FullAck};
use crate::settings::external::Site;
use crate::settings::table::{one_of, SettingError, Table};
use std::sync::Arc;

/// The registered names, then the plug-ins', quoted, for messages: `"reno", "newreno" or
/// "cubic"`.
pub fn names() -> String {
    let quoted: Vec<String> = super::registry().map(|r| format!("{:?}", r.name)).chain(PLUGINS.names().iter().map(|n| format!("{n:?}"))).collect();
    one_of(&quoted, "or")
}

/// What `tcp.variant` names: a registered algorithm or, when none has the name, a plug-in
/// (`external.rs`).
#[derive(Clone)]
pub enum Variant {
    Registered(&'static Registration),
    Plugin(String, Arc<dyn Plugin>),
}

impl Variant {
    /// The algorithm `name` selects.
    pub fn find(name: &str) -> Option<Variant> {
        find(name).map(Variant::Registered).or_else(|| PLUGINS.find(name).map(|p| Variant::Plugin(name.to_string(), p)))
    }

    pub fn name(&self) -> &str {
        match self {
            Variant::Registered(r) => r.name,
            Variant::Plugin(name, _) => name,
        }
    }

    /// The loss recovery the sender runs with it.
    pub fn recovery(&self) -> Recovery {
        match self {
            Variant::Registered(r) => r.recovery,
            Variant::Plugin(_, p) => p.recovery(),
        }
    }

    /// What it needs of ECN.
    pub fn ecn(&self) -> EcnUse {
        match self {
            Variant::Registered(r) => r.ecn,
            Variant::Plugin(_, p) => p.ecn(),
        }
    }

    /// Its configuration for one flow from its table, as [`build`] (a plug-in is handed the
    /// whole table, and the window's rules of its recovery: Reno's leaves recovery with
    /// cwnd = ssthresh, as the registered `reno`). `site` says which flow, for a plug-in.
    pub fn build(&self, table: &Table, ctx: &CcContext, site: impl FnOnce() -> Site) -> Result<CcConfig, SettingError> {
        match self {
            Variant::Registered(r) => build(r, table, ctx),
            Variant::Plugin(name, p) => {
                let mut ctx = ctx.clone();
                if p.recovery() == Recovery::Reno {
                    ctx.window.full_ack = FullAck::Ssthresh;
                }
                let under = |key: &str| if key.is_empty() { name.clone() } else { format!("{name}.{key}") };
                let configured = p.configure(table, &ctx, site()).map_err(|e| SettingError::new(under(&e.key), e.message))?;
                Ok(CcConfig::External(ExternalConfig(configured)))
            }
        }
    }
}
