//! Time, the event queue and random streams: the parts of the engine that know nothing of
//! networks.

pub mod event;
pub mod prefetch;
pub mod rng;
pub mod stop;
pub mod time;

pub use event::EventQueue;
pub use rng::Rng;
pub use time::{Dur, Serializer, SimTime};
