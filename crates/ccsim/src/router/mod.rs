//! Router extensions: mechanisms that see packets at defined points of the forwarding path
//! (on arrival, on a queue's drop) and may emit packets of their own. The engine calls each
//! through one `if let Some(..)` hook per point, so an extension that is off costs nothing.

pub mod acc;
