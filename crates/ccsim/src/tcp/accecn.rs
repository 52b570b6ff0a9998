//! Accurate ECN feedback (AccECN, RFC 9768): the ACE counter in the TCP header, the
//! negotiation of the handshake, and the sender's reading of the counter.
//!
//! - **The ACE field** (RFC 9768 3.2.1): the three header bits AE (the bit RFC 3540's nonce
//!   had, the low bit of the TCP header's byte 12), CWR and ECE read together as a 3-bit
//!   counter, AE the most significant. A Data Receiver counts the CE-marked packets it
//!   receives, `r.cep`, from 5 (3.2.2.1: the initial value is not zero, so that a
//!   middlebox zeroing the bits shows), and every ACK carries `r.cep mod 8`.
//! - **The sender** (3.2.2.5, Appendix A.2) keeps `s.cep`, the CE count it has been told, and
//!   reads each ACK's increase as `(ACE - s.cep) mod 8`. An ACK that acknowledges 8 packets
//!   or more could hide a wrap of the counter: the sender then assumes as many marks as the
//!   newly acknowledged packets allow (Appendix A.2.1's safety, as Linux's
//!   `tcp_accecn_process`): the largest count no larger than them that agrees with ACE mod 8.
//! - **Negotiation** (3.1.1, Table 2): a client that wants AccECN sends a SYN with AE, CWR
//!   and ECE all set; an AccECN server answers with a SYN/ACK whose three bits are not one of
//!   RFC 3168's patterns (they feed back the SYN's IP-ECN field, Table 3); an RFC 3168 server
//!   answers ECE alone (classic ECN); a server without ECN, none. A client that asks for RFC
//!   3168's ECN (CWR and ECE, 3168 6.1.1) gets RFC 3168's answer from an AccECN server too.
//!   ccsim has no handshake (connections exist at time zero, `tcp/mod.rs`); the scenario
//!   builder plays this exchange with [`negotiate`] on the two ends' settings and configures
//!   both with its outcome, so that a receiver that does not support AccECN makes an AccECN
//!   sender fall back to RFC 3168's feedback, and one without ECN turns ECN off.
//!
//! Not modelled: the AccECN Option (byte counters, 3.2.3), which is optional to send; the
//! ACE field on the sender's data packets is written (its own `r.cep` for the reverse
//! direction, which stays at 5: ACKs are not ECN-capable here) so that captures show what a
//! real AccECN connection would carry.

use crate::packet::{flags, Ecn, Packet};

/// The initial value of the CE packet counters, `r.cep` and `s.cep` (RFC 9768 3.2.2.1).
pub const CEP_INIT: u32 = 5;

/// The divisor of the ACE field: it carries a count modulo 8.
pub const DIVACE: u32 = 8;

/// The ACE field of a TCP segment: AE, CWR and ECE as a 3-bit number, AE the most
/// significant (RFC 9768 3.2.1, Figure 2).
pub fn ace(pkt: &Packet) -> u8 {
    ((pkt.ae as u8) << 2) | ((pkt.has_flag(flags::CWR) as u8) << 1) | pkt.has_flag(flags::ECE) as u8
}

/// Writes `count mod 8` into `pkt`'s ACE field.
pub fn set_ace(pkt: &mut Packet, count: u32) {
    let v = count % DIVACE;
    pkt.ae = v & 4 != 0;
    pkt.flags &= !(flags::CWR | flags::ECE);
    if v & 2 != 0 {
        pkt.flags |= flags::CWR;
    }
    if v & 1 != 0 {
        pkt.flags |= flags::ECE;
    }
}

/// The CE marks an ACK reports beyond the `s_cep` the sender has counted, from its ACE field
/// `ace` and the packets it newly acknowledges: `(ace - s_cep) mod 8`, or, when `newly_acked`
/// is 8 or more (the counter could have wrapped unseen), the largest count no larger than
/// `newly_acked` that agrees with it modulo 8 (RFC 9768 Appendix A.2.1).
pub fn ce_delta(ace: u8, s_cep: u32, newly_acked: u32) -> u32 {
    let delta = (ace as u32 + DIVACE - s_cep % DIVACE) % DIVACE;
    if newly_acked < DIVACE {
        delta
    } else {
        newly_acked - (newly_acked - delta) % DIVACE
    }
}

/// What an end of a connection supports: the highest ECN feedback it offers or accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnSupport {
    /// No ECN.
    None,
    /// RFC 3168's ECN-Echo and CWR.
    Rfc3168,
    /// Accurate ECN (RFC 9768), and RFC 3168's with a peer that asks for it.
    AccEcn,
}

/// The feedback a connection ends up with after the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Negotiated {
    /// ECN is off: packets are Not-ECT.
    NoEcn,
    /// RFC 3168's feedback.
    Rfc3168,
    /// AccECN's ACE counter.
    AccEcn,
}

/// The AE, CWR and ECE bits (as a 3-bit number, AE first) of a client's SYN (RFC 9768
/// 3.1.1; RFC 3168 6.1.1 for the classic request).
pub fn syn_bits(client: EcnSupport) -> u8 {
    match client {
        EcnSupport::None => 0b000,
        EcnSupport::Rfc3168 => 0b011,
        EcnSupport::AccEcn => 0b111,
    }
}

/// The AE, CWR and ECE bits of the server's SYN/ACK to a SYN with `syn` bits that arrived
/// with IP-ECN field `syn_ecn` (RFC 9768 Table 2; an AccECN server's answer encodes the
/// SYN's codepoint, Table 3).
pub fn synack_bits(server: EcnSupport, syn: u8, syn_ecn: Ecn) -> u8 {
    match (server, syn) {
        (EcnSupport::AccEcn, 0b111) => match syn_ecn {
            Ecn::NotEct => 0b010,
            Ecn::Ect1 => 0b011,
            Ecn::Ect0 => 0b100,
            Ecn::Ce => 0b110,
        },
        (EcnSupport::AccEcn | EcnSupport::Rfc3168, 0b011 | 0b111) => 0b001,
        _ => 0b000,
    }
}

/// What the client concludes from the SYN/ACK's bits, having sent `syn` bits (RFC 9768
/// Table 2: any pattern other than RFC 3168's `001` and no ECN's `000` answers an AccECN
/// SYN with AccECN; `111` is reserved and also means AccECN).
pub fn outcome(syn: u8, synack: u8) -> Negotiated {
    match (syn, synack) {
        (0b000, _) | (_, 0b000) => Negotiated::NoEcn,
        (_, 0b001) => Negotiated::Rfc3168,
        (0b111, _) => Negotiated::AccEcn,
        _ => Negotiated::NoEcn,
    }
}

/// The handshake of a connection whose client (the data sender) supports `client` and
/// whose server (the data receiver) supports `server`; its SYN is sent Not-ECT, as RFC 3168
/// requires of a SYN.
pub fn negotiate(client: EcnSupport, server: EcnSupport) -> Negotiated {
    let syn = syn_bits(client);
    outcome(syn, synack_bits(server, syn, Ecn::NotEct))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Endpoints, Seq};
    use crate::sim::SimTime;

    fn ack() -> Packet {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 };
        Packet::tcp_ack(&ends, Seq(0), 65_535, 64, SimTime::ZERO)
    }

    #[test]
    fn the_ace_field_is_ae_cwr_ece_and_wraps_at_eight() {
        let mut p = ack();
        for count in 0..20 {
            set_ace(&mut p, count);
            assert_eq!(ace(&p) as u32, count % 8, "{count}");
            assert!(p.has_flag(flags::ACK), "the other flags are kept");
        }
        set_ace(&mut p, CEP_INIT);
        assert_eq!((p.ae, p.has_flag(flags::CWR), p.has_flag(flags::ECE)), (true, false, true), "5 = 0b101");
        set_ace(&mut p, 6);
        assert_eq!((p.ae, p.has_flag(flags::CWR), p.has_flag(flags::ECE)), (true, true, false));
    }

    #[test]
    fn the_delta_is_the_count_modulo_eight_and_safe_when_it_could_have_wrapped() {
        assert_eq!(ce_delta(5, 5, 1), 0, "the initial value: no marks");
        assert_eq!(ce_delta(7, 5, 2), 2);
        assert_eq!(ce_delta(1, 5, 4), 4, "across the wrap: 5, 6, 7, 0, 1");
        assert_eq!(ce_delta(5, 13, 3), 0, "s.cep counts on past 8");
        // Eight packets acknowledged at once: ACE unchanged could be 0 or 8 marks; the safe
        // reading takes 8.
        assert_eq!(ce_delta(5, 5, 8), 8);
        assert_eq!(ce_delta(7, 5, 8), 2, "2 or 10: 10 is more than were acknowledged");
        assert_eq!(ce_delta(7, 5, 10), 10);
        assert_eq!(ce_delta(7, 5, 17), 10, "2, 10 or 18: at most 17");
    }

    #[test]
    fn negotiation_follows_table_2_and_falls_back() {
        use EcnSupport::*;
        let cases = [
            (AccEcn, AccEcn, Negotiated::AccEcn),
            (AccEcn, Rfc3168, Negotiated::Rfc3168),
            (AccEcn, None, Negotiated::NoEcn),
            (Rfc3168, AccEcn, Negotiated::Rfc3168),
            (Rfc3168, Rfc3168, Negotiated::Rfc3168),
            (Rfc3168, None, Negotiated::NoEcn),
            (None, AccEcn, Negotiated::NoEcn),
        ];
        for (client, server, expected) in cases {
            assert_eq!(negotiate(client, server), expected, "{client:?} to {server:?}");
        }
        // An AccECN server feeds the SYN's IP-ECN field back in its SYN/ACK (Table 3), and
        // each of those answers means AccECN to the client.
        let answers: Vec<u8> = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce].iter().map(|&e| synack_bits(AccEcn, 0b111, e)).collect();
        assert_eq!(answers, [0b010, 0b011, 0b100, 0b110]);
        assert!(answers.iter().all(|&a| outcome(0b111, a) == Negotiated::AccEcn));
        assert_eq!(outcome(0b011, 0b010), Negotiated::NoEcn, "a classic client does not read AccECN answers");
    }
}
