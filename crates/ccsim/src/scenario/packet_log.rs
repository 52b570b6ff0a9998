//! The scenario's `[packet_log]` table: its names resolved into the filter of a
//! [`PacketLog`](crate::trace::packet_log::PacketLog).

use super::expand_names;
use super::select_flows;
use crate::net::{LinkId, Network, NodeId};
use crate::settings::error::{fail, BuildError};
use crate::settings::schema::PacketLogSpec;
use crate::trace::packet_log::{Filter, PacketLog, DEFAULT_MAX_EVENTS, EVENTS};
use std::collections::HashMap;

/// The log `spec` asks for, or None (no table, or `enabled = false`).
pub(super) fn build(
    spec: Option<&PacketLogSpec>,
    net: &Network,
    node_ids: &HashMap<String, NodeId>,
    link_ids: &HashMap<String, LinkId>,
    groups: &HashMap<String, (usize, usize)>,
    flow_count: usize,
) -> Result<Option<Box<PacketLog>>, BuildError> {
    let Some(spec) = spec.filter(|s| s.enabled) else { return Ok(None) };
    let mut filter = Filter::default();
    if !spec.events.is_empty() {
        let mut on = [false; EVENTS.len()];
        for (i, e) in spec.events.iter().enumerate() {
            let Some(k) = EVENTS.iter().position(|n| n == e) else {
                return fail(format!("packet_log.events[{i}]"), format!("unknown event {e:?} (expected {})", EVENTS.join(", ")));
            };
            on[k] = true;
        }
        filter.events = Some(on);
    }
    if !spec.links.is_empty() {
        let mut on = vec![false; net.links.len()];
        for (i, name) in spec.links.iter().enumerate() {
            let l = link_ids.get(name).ok_or_else(|| (format!("packet_log.links[{i}]"), format!("unknown link {name:?} (links are named \"A->B\")")))?;
            on[*l as usize] = true;
        }
        filter.links = Some(on);
    }
    if !spec.nodes.is_empty() {
        let mut on = vec![false; net.nodes.len()];
        for (i, pattern) in spec.nodes.iter().enumerate() {
            let path = format!("packet_log.nodes[{i}]");
            for name in expand_names(pattern).or_else(|m| fail(&path, m))? {
                let n = node_ids.get(&name).ok_or_else(|| (path.clone(), format!("unknown node {name:?}")))?;
                on[*n as usize] = true;
            }
        }
        filter.nodes = Some(on);
    }
    if !spec.flows.is_empty() {
        let mut on = vec![false; flow_count];
        for (i, sel) in spec.flows.iter().enumerate() {
            for f in select_flows(sel, &format!("packet_log.flows[{i}]"), groups)? {
                on[f] = true;
            }
        }
        filter.flows = Some(on);
    }
    let max = spec.max_events.unwrap_or(DEFAULT_MAX_EVENTS);
    if max == 0 {
        return fail("packet_log.max_events", "must be at least 1");
    }
    Ok(Some(Box::new(PacketLog::new(filter, max))))
}
