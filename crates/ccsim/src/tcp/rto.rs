//! Retransmission timeout estimation (RFC 6298), with Karn's rule applied by the caller
//! (samples are only taken for segments never retransmitted) and exponential backoff that
//! persists until the next valid sample.

use crate::sim::Dur;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    min_rto: Dur,
    max_rto: Dur,
    initial_rto: Dur,
    granularity: Dur,
    /// Number of doublings applied since the last valid sample.
    backoffs: u32,
}

impl RtoEstimator {
    pub fn new(min_rto: Dur, max_rto: Dur, initial_rto: Dur, granularity: Dur) -> RtoEstimator {
        RtoEstimator { srtt_ns: None, rttvar_ns: 0.0, min_rto, max_rto, initial_rto, granularity, backoffs: 0 }
    }

    /// RFC 6298 (2.2) and (2.3); a valid sample also ends any backoff.
    pub fn sample(&mut self, rtt: Dur) {
        let r = rtt.as_nanos() as f64;
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r);
                self.rttvar_ns = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar_ns = 0.75 * self.rttvar_ns + 0.25 * (srtt - r).abs();
                self.srtt_ns = Some(0.875 * srtt + 0.125 * r);
            }
        }
        self.backoffs = 0;
    }

    /// RFC 6298 (5.5): double the timeout.
    pub fn back_off(&mut self) {
        self.backoffs = (self.backoffs + 1).min(30);
    }

    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt_ns.map(|s| Dur(s as u64))
    }

    /// The current timeout, backoff included, clamped to [min_rto, max_rto].
    pub fn rto(&self) -> Dur {
        let base = match self.srtt_ns {
            None => self.initial_rto,
            Some(srtt) => {
                let var = (4.0 * self.rttvar_ns).max(self.granularity.as_nanos() as f64);
                Dur((srtt + var) as u64)
            }
        };
        let base = base.max(self.min_rto);
        Dur(base.as_nanos().saturating_mul(1u64 << self.backoffs)).min(self.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RtoEstimator {
        RtoEstimator::new(Dur::from_millis(200), Dur::from_secs(60), Dur::from_secs(1), Dur::from_millis(1))
    }

    #[test]
    fn first_and_later_samples_follow_rfc6298() {
        let mut e = est();
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.sample(Dur::from_millis(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.sample(Dur::from_millis(100));
        // RTTVAR = 0.75*50 + 0 = 37.5, SRTT = 100: RTO = 250 ms.
        assert_eq!(e.rto(), Dur::from_micros(250_000));
    }

    #[test]
    fn backoff_doubles_until_a_new_sample_and_is_capped() {
        let mut e = est();
        e.sample(Dur::from_millis(100));
        let base = e.rto();
        e.back_off();
        assert_eq!(e.rto(), base.saturating_mul(2));
        e.back_off();
        assert_eq!(e.rto(), base.saturating_mul(4));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.sample(Dur::from_millis(100));
        assert!(e.rto() < Dur::from_millis(300));
    }

    #[test]
    fn min_rto_applies() {
        let mut e = est();
        e.sample(Dur::from_millis(1));
        assert_eq!(e.rto(), Dur::from_millis(200));
    }
}
