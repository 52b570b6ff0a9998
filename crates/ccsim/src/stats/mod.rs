//! Statistics computed during the run.
//!
//! Counters are cumulative from time zero; when the warm-up ends the engine takes a snapshot
//! and the reported numbers are `end - snapshot`, so excluding the warm-up costs nothing per
//! packet. Maxima cannot be subtracted and are reset at the end of the warm-up instead.

pub mod histogram;
pub mod series;

pub use series::{Series, SeriesSpec, SeriesTarget};

/// Defines a struct of cumulative counters with a field-wise `delta` (end minus snapshot).
/// Its JSON Schema (doc comments as descriptions) is part of the report's when a report
/// flattens it in.
macro_rules! counters {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, schemars::JsonSchema)]
        pub struct $name { $($(#[$fm])* pub $f: $t,)* }
        impl $name {
            /// Counts accumulated since `base` was taken.
            pub fn delta(&self, base: &$name) -> $name {
                $name { $($f: self.$f - base.$f,)* }
            }
        }
    };
}
pub(crate) use counters;

/// Integrates a piecewise-constant value over time (queue length, link busy state).
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeIntegral {
    /// Sum of value x nanoseconds.
    pub area: u128,
    last_change_ns: u64,
}

impl TimeIntegral {
    /// Accounts for `value` having held since the last update, up to `now_ns`.
    pub fn advance(&mut self, value: u64, now_ns: u64) {
        let dt = now_ns.saturating_sub(self.last_change_ns);
        self.area += value as u128 * dt as u128;
        self.last_change_ns = now_ns;
    }
}

/// Jain's fairness index of a set of throughputs: 1 when all are equal, 1/n when one takes all.
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 {
        1.0
    } else {
        sum * sum / (xs.len() as f64 * sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    counters! {
        pub struct Demo { pub a: u64, pub b: u128, }
    }

    #[test]
    fn delta_subtracts_field_wise() {
        let base = Demo { a: 3, b: 10 };
        let end = Demo { a: 5, b: 30 };
        assert_eq!(end.delta(&base), Demo { a: 2, b: 20 });
    }

    #[test]
    fn time_integral_and_jain() {
        let mut t = TimeIntegral::default();
        t.advance(0, 10);
        t.advance(4, 20); // 4 held from 10 ns to 20 ns
        t.advance(0, 30);
        assert_eq!(t.area, 40);
        assert!((jain_index(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
