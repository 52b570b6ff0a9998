// Today's queue disciplines on the DUMBBELL, for ns-3 (written against Debian's
// libns3-dev, ns-3.37): the ns-3 side of scripts/validate_ns3.py.
//
//   aqm --disc=fifo|codel|fq_codel|pie|step [--n=10] [--rate=100Mbps] [--time=30]
//       [--warmup=5] [--seed=1] [--tcp=newreno|cubic|dctcp|bbr|mix] [--limit=1000] [--k=65]
//       [--ecn=0|1] [--sack=1|0] [--delay=20ms] [--initcwnd=1] [--recovery=classic|prr]
//       [--series=PATH] [--trace=PATH] [--trace-every=10ms] [--trace-acks=T0:T1]
//       [--bbr-stream-per-flow=0|1] [--bbr-linux-samples=0|1]
//
// N TCP bulk flows, each from its own sender S_i to its own receiver D_i:
//
//   S_i --1Gb/s,1ms-- R1 ==RATE,DELAY, DISC== R2 --1Gb/s,1ms-- D_i
//
// The discipline sits on R1's bottleneck device, whose own queue holds 1 packet, so the
// queue disc is the real queue; every other device has a 10000-packet FIFO that never
// drops. The disciplines are set to the RFCs' defaults as ccsim implements them:
//   fifo      FifoQueueDisc, LIMIT packets
//   codel     CoDelQueueDisc: target 5 ms, interval 100 ms, LIMIT packets
//   fq_codel  FqCoDelQueueDisc: 1024 flows, quantum 1514 (RFC 8290; ns-3 would take the
//             device MTU, 1500), target 5 ms, interval 100 ms, LIMIT packets, ECN as --ecn
//   pie       PieQueueDisc: target 15 ms, tupdate 15 ms, alpha 0.125, beta 1.25, the
//             departure-rate estimator (RFC 8033 Section 5.2; ns-3's default is timestamps)
//             and a 150 ms burst allowance (the RFC's, ns-3.37's default), LIMIT
//             packets
//   step      RedQueueDisc with MinTh = MaxTh = K, QW = 1 (the instantaneous queue), ECN
//             marks (DCTCP's step marker), LIMIT packets
// BBR is ns-3's TcpBbr (Linux's v1 as ns-3 models it) with pacing on, the initial window
// paced too (as Linux paces it). --series=PATH writes flow 0's RTT samples (ms), pacing rate
// (bit/s) and cwnd (bytes) at each change as "t kind value" lines.
// Loss recovery (and the CWR state after an ECN-Echo) is TcpClassicRecovery by default,
// which cuts cwnd to ssthresh at once; --recovery=prr takes ns-3.37's default,
// TcpPrrRecovery (RFC 6937, PRR-SSRB), which brings it down over the round trip.
// 1000-byte segments, no timestamps, no delayed ACKs, initial window 1, min RTO 200 ms,
// receive buffers that never limit; start times uniform in [0, 1] s. CUBIC without HyStart
// (RFC 9438 leaves it optional; ccsim has none). SACK is on by default:
// ns-3.37's loss recovery without SACK degrades badly under bursts of drops (see
// benchmarks/ns3/dumbbell.cc), while ccsim's NewReno recovers as RFC 6582 says.
//
// Prints key=value lines:
//   goodput_bps       in-order payload bits at the sinks after the warm-up / measured time
//   mean_delay_ms     mean sojourn time in the bottleneck queue disc of the packets that
//                     left it after the warm-up
//   mean_len_packets  mean of the queue disc's length sampled every 1 ms after the warm-up
//   drops, marks      at the bottleneck queue disc after the warm-up
//   jain              Jain's index of the flows' goodputs

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
double g_sojournSum = 0; // seconds
uint64_t g_sojournCount = 0;
double g_lenSum = 0;
uint64_t g_lenCount = 0;
bool g_measuring = false;
bool g_streamPerFlow = false;
bool g_linuxSamples = false;
FILE* g_series = nullptr;

void
OnRtt(Time, Time rtt)
{
    std::fprintf(g_series, "%.6f rtt %.4f\n", Simulator::Now().GetSeconds(), rtt.GetSeconds() * 1e3);
}

void
OnPacingRate(DataRate, DataRate rate)
{
    std::fprintf(g_series, "%.6f pacing %llu\n", Simulator::Now().GetSeconds(),
                 (unsigned long long)rate.GetBitRate());
}

void
OnCwnd(uint32_t, uint32_t cwnd)
{
    std::fprintf(g_series, "%.6f cwnd %u\n", Simulator::Now().GetSeconds(), cwnd);
}

void
ConnectSeries(uint32_t node)
{
    const std::string base =
        "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(base + "RTT", MakeCallback(&OnRtt));
    Config::ConnectWithoutContext(base + "PacingRate", MakeCallback(&OnPacingRate));
    Config::ConnectWithoutContext(base + "CongestionWindow", MakeCallback(&OnCwnd));
}

/// TcpBbr with CongControl wrapped: the state BBR leaves behind after each ACK is read
/// through TcpBbr's protected accessors (ns-3.37 has no trace source for it). Behaviour is
/// TcpBbr's: the wrapper only reads.
class TracedBbr : public TcpBbr
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AqmTracedBbr")
                                .SetParent<TcpBbr>()
                                .SetGroupName("Internet")
                                .AddConstructor<TracedBbr>();
        return tid;
    }

    TracedBbr();

    TracedBbr(const TracedBbr& sock)
        : TcpBbr(sock)
    {
    }

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TracedBbr>(this);
    }

    /// One `snap` line; resets the per-interval counters.
    void Snap();

    int m_flow{-1};
    Time m_created;
    Ptr<TcpSocketState> m_tcb;
    // Per interval: rate samples given to BBR, those app-limited, the largest and smallest
    // delivery rate, bytes marked lost, segments sent and resent.
    uint32_t m_samples{0};
    uint32_t m_appLimitedSamples{0};
    uint32_t m_invalid{0};
    uint64_t m_maxRate{0};
    uint64_t m_minRate{0};
    uint64_t m_lost{0};
    uint32_t m_sent{0};
    uint32_t m_resent{0};
    SequenceNumber32 m_highestSent{0};
    Time m_rto;
    uint32_t m_lastState{99};
    uint64_t m_nextRound{0};
    uint32_t m_rounds{0};
    double m_lastGain{-1};
};

NS_OBJECT_ENSURE_REGISTERED(TracedBbr);

FILE* g_trace = nullptr;
std::vector<TracedBbr*> g_traced;
double g_ackFrom = -1;
double g_ackTo = -1;

TracedBbr::TracedBbr()
    : m_created(Simulator::Now())
{
    g_traced.push_back(this);
}

void
TracedBbr::CongControl(Ptr<TcpSocketState> tcb,
                       const TcpRateOps::TcpRateConnection& rc,
                       const TcpRateOps::TcpRateSample& rs)
{
    if (g_linuxSamples && m_flow >= 0)
    {
        TcpRateOps::TcpRateSample linux = rs;
        const Time ack = Simulator::Now() - rs.m_priorTime;
        linux.m_interval = std::max(rs.m_sendElapsed, ack);
        const bool valid = !rs.m_priorTime.IsZero() && rs.m_delivered >= 0 &&
                           rs.m_ackedSacked > 0 && linux.m_interval >= tcb->m_minRtt;
        linux.m_deliveryRate = valid ? DataRate(rs.m_delivered * 8.0 / linux.m_interval.GetSeconds())
                                     : DataRate(0);
        TcpBbr::CongControl(tcb, rc, linux);
    }
    else
    {
        TcpBbr::CongControl(tcb, rc, rs);
    }
    m_tcb = tcb;
    if (m_flow < 0 || !g_trace)
    {
        return;
    }
    const uint64_t rate = rs.m_deliveryRate.GetBitRate();
    // TcpBbr::UpdateRound's count, as it runs (only for samples with a delivery rate).
    if (rate != 0 && rs.m_priorDelivered >= m_nextRound)
    {
        m_nextRound = rc.m_delivered;
        ++m_rounds;
    }
    ++m_samples;
    // Samples TcpRateLinux marked invalid (m_delivered < 0 or a zero interval) whose
    // m_deliveryRate is still the previous sample's: TcpBbr::UpdateBtlBw takes them.
    m_invalid += rate != 0 && (rs.m_delivered < 0 || rs.m_interval.IsZero());
    m_appLimitedSamples += rs.m_isAppLimited;
    m_maxRate = std::max(m_maxRate, rate);
    m_minRate = m_samples == 1 ? rate : std::min(m_minRate, rate);
    m_lost += rs.m_bytesLoss;
    const double now = Simulator::Now().GetSeconds();
    const uint32_t state = GetBbrState();
    const double gain = GetPacingGain();
    if (state != m_lastState || gain != m_lastGain)
    {
        std::fprintf(g_trace,
                     "%.6f %d bbr %s %.3f %.3f bdp %u pacing %llu cwnd %u\n",
                     now,
                     m_flow,
                     BbrModeName[state],
                     gain,
                     GetCwndGain(),
                     InFlight(tcb, 1) - InFlight(tcb, 0),
                     (unsigned long long)tcb->m_pacingRate.Get().GetBitRate(),
                     tcb->m_cWnd.Get());
        m_lastState = state;
        m_lastGain = gain;
    }
    if (now >= g_ackFrom && now < g_ackTo)
    {
        std::fprintf(g_trace,
                     "%.6f %d ack rate %llu interval_ms %.3f delivered %d applimited %d "
                     "prior_inflight %u acked %u lost %u cwnd %u inflight %u pacing %llu "
                     "state %u gain %.3f cong %d rtt_ms %.3f prior_delivered %u delivered_total %llu "
                     "send_ms %.3f ack_ms %.3f round %u\n",
                     now,
                     m_flow,
                     (unsigned long long)rate,
                     rs.m_interval.GetSeconds() * 1e3,
                     rs.m_delivered,
                     (int)rs.m_isAppLimited,
                     rs.m_priorInFlight,
                     rs.m_ackedSacked,
                     rs.m_bytesLoss,
                     tcb->m_cWnd.Get(),
                     tcb->m_bytesInFlight.Get(),
                     (unsigned long long)tcb->m_pacingRate.Get().GetBitRate(),
                     state,
                     gain,
                     (int)tcb->m_congState.Get(),
                     tcb->m_lastRtt.Get().GetSeconds() * 1e3,
                     rs.m_priorDelivered,
                     (unsigned long long)rc.m_delivered,
                     rs.m_sendElapsed.GetSeconds() * 1e3,
                     rs.m_ackElapsed.GetSeconds() * 1e3,
                     m_rounds);
    }
}

void
TracedBbr::Snap()
{
    if (!m_tcb)
    {
        return;
    }
    std::fprintf(g_trace,
                 "%.6f %d snap cwnd %u inflight %u pacing %llu state %s pgain %.3f cgain %.3f "
                 "bdp %u ssthresh %u cong %d rtt_ms %.3f minrtt_ms %.3f rto_ms %.1f samples %u "
                 "applimited %u invalid %u maxrate %llu minrate %llu lost %llu sent %u resent %u round %u\n",
                 Simulator::Now().GetSeconds(),
                 m_flow,
                 m_tcb->m_cWnd.Get(),
                 m_tcb->m_bytesInFlight.Get(),
                 (unsigned long long)m_tcb->m_pacingRate.Get().GetBitRate(),
                 BbrModeName[GetBbrState()],
                 GetPacingGain(),
                 GetCwndGain(),
                 InFlight(m_tcb, 1) - InFlight(m_tcb, 0),
                 m_tcb->m_ssThresh.Get(),
                 (int)m_tcb->m_congState.Get(),
                 m_tcb->m_lastRtt.Get().GetSeconds() * 1e3,
                 m_tcb->m_minRtt == Time::Max() ? -1.0 : m_tcb->m_minRtt.GetSeconds() * 1e3,
                 m_rto.GetSeconds() * 1e3,
                 m_samples,
                 m_appLimitedSamples,
                 m_invalid,
                 (unsigned long long)m_maxRate,
                 (unsigned long long)m_minRate,
                 (unsigned long long)m_lost,
                 m_sent,
                 m_resent,
                 m_rounds);
    m_samples = m_appLimitedSamples = m_invalid = m_sent = m_resent = 0;
    m_maxRate = m_minRate = m_lost = 0;
}

void
SnapAll(Time every)
{
    for (TracedBbr* b : g_traced)
    {
        if (b->m_flow >= 0)
        {
            b->Snap();
        }
    }
    Simulator::Schedule(every, &SnapAll, every);
}

void
OnTraceTx(TracedBbr* b, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    if (now >= g_ackFrom && now < g_ackTo)
    {
        std::fprintf(g_trace,
                     "%.6f %d tx seq %u resent %d\n",
                     now,
                     b->m_flow,
                     h.GetSequenceNumber().GetValue(),
                     (int)(h.GetSequenceNumber() < b->m_highestSent));
    }
    if (h.GetSequenceNumber() < b->m_highestSent)
    {
        ++b->m_resent;
    }
    else
    {
        ++b->m_sent;
        b->m_highestSent = h.GetSequenceNumber() + p->GetSize();
    }
}

void
OnTraceCongState(TracedBbr* b,
                 TcpSocketState::TcpCongState_t from,
                 TcpSocketState::TcpCongState_t to)
{
    std::fprintf(g_trace,
                 "%.6f %d cong %s %s cwnd %u inflight %u pacing %llu\n",
                 Simulator::Now().GetSeconds(),
                 b->m_flow,
                 TcpSocketState::TcpCongStateName[from],
                 TcpSocketState::TcpCongStateName[to],
                 b->m_tcb ? b->m_tcb->m_cWnd.Get() : 0,
                 b->m_tcb ? b->m_tcb->m_bytesInFlight.Get() : 0,
                 b->m_tcb ? (unsigned long long)b->m_tcb->m_pacingRate.Get().GetBitRate() : 0ULL);
}

void
OnTraceRto(TracedBbr* b, Time, Time rto)
{
    b->m_rto = rto;
}

/// Ties flow `flow`'s sender, created at `start`, to its TracedBbr and its socket's traces.
void
ConnectTrace(uint32_t flow, uint32_t node, Time start)
{
    TracedBbr* bbr = nullptr;
    for (TracedBbr* b : g_traced)
    {
        if (b->m_created == start && b->m_flow < 0)
        {
            bbr = b;
        }
    }
    if (!bbr)
    {
        std::fprintf(stderr, "no TracedBbr created at %.9f s for flow %u\n", start.GetSeconds(), flow);
        return;
    }
    bbr->m_flow = flow;
    if (g_streamPerFlow)
    {
        bbr->SetStream(4 + flow);
    }
    const std::string base =
        "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(base + "Tx", MakeBoundCallback(&OnTraceTx, bbr));
    Config::ConnectWithoutContext(base + "CongState", MakeBoundCallback(&OnTraceCongState, bbr));
    Config::ConnectWithoutContext(base + "RTO", MakeBoundCallback(&OnTraceRto, bbr));
}

void
OnSojourn(Time t)
{
    if (g_measuring)
    {
        g_sojournSum += t.GetSeconds();
        ++g_sojournCount;
    }
}

void
SampleLength(Ptr<QueueDisc> qd)
{
    if (g_measuring)
    {
        g_lenSum += qd->GetNPackets();
        ++g_lenCount;
    }
    Simulator::Schedule(MilliSeconds(1), &SampleLength, qd);
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string disc = "fifo";
    uint32_t nFlows = 10;
    std::string rate = "100Mbps";
    double simTime = 30;
    double warmup = 5;
    uint32_t seed = 1;
    std::string tcp = "newreno";
    uint32_t limit = 1000;
    uint32_t k = 65;
    bool ecn = false;
    bool sack = true;
    std::string delay = "20ms";
    uint32_t initCwnd = 1;
    std::string series;
    std::string recovery = "classic";
    std::string trace;
    Time traceEvery = MilliSeconds(10);
    std::string traceAcks;
    CommandLine cmd;
    cmd.AddValue("disc", "fifo, codel, fq_codel, pie or step", disc);
    cmd.AddValue("n", "flows", nFlows);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("time", "simulated seconds", simTime);
    cmd.AddValue("warmup", "seconds before measurement", warmup);
    cmd.AddValue("seed", "RNG seed (>= 1)", seed);
    cmd.AddValue("tcp", "newreno, cubic, dctcp, bbr or mix (the first half CUBIC, the rest NewReno)", tcp);
    cmd.AddValue("limit", "bottleneck buffer, packets", limit);
    cmd.AddValue("k", "step marker threshold, packets", k);
    cmd.AddValue("ecn", "ECN-capable senders", ecn);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("delay", "bottleneck propagation delay", delay);
    cmd.AddValue("initcwnd", "initial window, segments", initCwnd);
    cmd.AddValue("recovery", "classic (TcpClassicRecovery) or prr (TcpPrrRecovery)", recovery);
    cmd.AddValue("series", "file for flow 0's RTT, pacing rate and cwnd", series);
    cmd.AddValue("trace", "file for every BBR flow's state, rate samples and events", trace);
    cmd.AddValue("trace-every", "interval of the trace's snap lines", traceEvery);
    cmd.AddValue("trace-acks", "T0:T1, seconds: one trace line per ACK in between", traceAcks);
    cmd.AddValue("bbr-stream-per-flow",
                 "experiment: flow i's TcpBbr draws from random stream 4 + i (needs --trace)",
                 g_streamPerFlow);
    cmd.AddValue("bbr-linux-samples",
                 "experiment: TcpBbr gets Linux's rate samples (needs --trace)",
                 g_linuxSamples);
    cmd.Parse(argc, argv);
    if ((!trace.empty() || g_streamPerFlow || g_linuxSamples) && (tcp != "bbr" || trace.empty()))
    {
        std::fprintf(stderr, "--trace and the --bbr-* experiments need --tcp=bbr and --trace\n");
        return 2;
    }
    if (!traceAcks.empty() && std::sscanf(traceAcks.c_str(), "%lf:%lf", &g_ackFrom, &g_ackTo) != 2)
    {
        std::fprintf(stderr, "--trace-acks takes T0:T1 (seconds)\n");
        return 2;
    }

    const uint32_t payload = 1000;
    const uint32_t bigBuffer = 64 * 1024 * 1024;
    const uint16_t port = 5000;
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);

    TypeId tcpType = TcpNewReno::GetTypeId();
    if (tcp == "cubic" || tcp == "mix")
    {
        tcpType = TcpCubic::GetTypeId();
        // RFC 9438's slow start is RFC 5681's (HyStart++ is optional), as in ccsim.
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    }
    else if (tcp == "dctcp")
    {
        tcpType = TcpDctcp::GetTypeId();
        ecn = true;
    }
    else if (tcp == "bbr")
    {
        tcpType = trace.empty() ? TcpBbr::GetTypeId() : TracedBbr::GetTypeId();
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
        Config::SetDefault("ns3::TcpSocketState::PaceInitialWindow", BooleanValue(true));
    }
    else if (tcp != "newreno")
    {
        std::fprintf(stderr, "unknown --tcp=%s\n", tcp.c_str());
        return 2;
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcpType));
    if (recovery != "classic" && recovery != "prr")
    {
        std::fprintf(stderr, "unknown --recovery=%s\n", recovery.c_str());
        return 2;
    }
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(payload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    if (ecn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }
    Config::SetDefault("ns3::Ipv4::WeakEsModel", BooleanValue(false));

    NodeContainer routers;
    routers.Create(2);
    Ptr<Node> r1 = routers.Get(0);
    Ptr<Node> r2 = routers.Get(1);
    NodeContainer senders;
    senders.Create(nFlows);
    NodeContainer receivers;
    receivers.Create(nFlows);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(senders);
    if (tcp == "mix")
    {
        // The default socket type is CUBIC's; the second half of the senders run NewReno.
        for (uint32_t i = nFlows / 2; i < nFlows; ++i)
        {
            std::ostringstream path;
            path << "/NodeList/" << senders.Get(i)->GetId() << "/$ns3::TcpL4Protocol/SocketType";
            Config::Set(path.str(), TypeIdValue(TcpNewReno::GetTypeId()));
        }
    }
    stack.Install(receivers);

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(rate));
    bottleneck.SetChannelAttribute("Delay", StringValue(delay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer bnDevs = bottleneck.Install(r1, r2);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("10000p"));

    const QueueSizeValue maxSize(QueueSize(std::to_string(limit) + "p"));
    TrafficControlHelper tch;
    if (disc == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", maxSize);
    }
    else if (disc == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", maxSize,
                             "Target", StringValue("5ms"),
                             "Interval", StringValue("100ms"),
                             "UseEcn", BooleanValue(ecn));
    }
    else if (disc == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", maxSize,
                             "Flows", UintegerValue(1024),
                             "Target", StringValue("5ms"),
                             "Interval", StringValue("100ms"),
                             "UseEcn", BooleanValue(ecn));
    }
    else if (disc == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize", maxSize,
                             "QueueDelayReference", TimeValue(MilliSeconds(15)),
                             "Tupdate", TimeValue(MilliSeconds(15)),
                             "A", DoubleValue(0.125),
                             "B", DoubleValue(1.25),
                             "UseDequeueRateEstimator", BooleanValue(true),
                             "MaxBurstAllowance", TimeValue(MilliSeconds(150)),
                             "UseEcn", BooleanValue(ecn));
    }
    else if (disc == "step")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", maxSize,
                             "MinTh", DoubleValue(k),
                             "MaxTh", DoubleValue(k),
                             "QW", DoubleValue(1.0),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "Gentle", BooleanValue(false),
                             "MeanPktSize", UintegerValue(payload + 40));
    }
    else
    {
        std::fprintf(stderr, "unknown --disc=%s\n", disc.c_str());
        return 2;
    }
    QueueDiscContainer qds = tch.Install(bnDevs.Get(0));
    Ptr<QueueDisc> qd = qds.Get(0);
    if (disc == "fq_codel")
    {
        DynamicCast<FqCoDelQueueDisc>(qd)->SetQuantum(1514);
    }
    TrafficControlHelper fifoTch;
    fifoTch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("10000p")));
    fifoTch.Install(bnDevs.Get(1));

    Ipv4AddressHelper addr;
    addr.SetBase("10.3.0.0", "255.255.255.252");
    Ipv4InterfaceContainer bnIf = addr.Assign(bnDevs);

    TrafficControlHelper noTch;
    std::vector<Ipv4Address> rxAddr(nFlows);
    Ipv4StaticRoutingHelper srh;
    Ipv4AddressHelper sAddr;
    sAddr.SetBase("10.1.0.0", "255.255.255.252");
    Ipv4AddressHelper dAddr;
    dAddr.SetBase("10.2.0.0", "255.255.255.252");
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        NetDeviceContainer sd = access.Install(senders.Get(i), r1);
        NetDeviceContainer dd = access.Install(r2, receivers.Get(i));
        Ipv4InterfaceContainer sIf = sAddr.Assign(sd);
        sAddr.NewNetwork();
        Ipv4InterfaceContainer dIf = dAddr.Assign(dd);
        dAddr.NewNetwork();
        noTch.Uninstall(sd);
        noTch.Uninstall(dd);
        rxAddr[i] = dIf.GetAddress(1);
        srh.GetStaticRouting(senders.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(sIf.GetAddress(1), 1);
        srh.GetStaticRouting(receivers.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(dIf.GetAddress(0), 1);
    }
    {
        Ptr<Ipv4> ip1 = r1->GetObject<Ipv4>();
        Ptr<Ipv4> ip2 = r2->GetObject<Ipv4>();
        uint32_t if1 = ip1->GetInterfaceForDevice(bnDevs.Get(0));
        uint32_t if2 = ip2->GetInterfaceForDevice(bnDevs.Get(1));
        srh.GetStaticRouting(ip1)->AddNetworkRouteTo(Ipv4Address("10.2.0.0"),
                                                     Ipv4Mask("255.255.0.0"),
                                                     bnIf.GetAddress(1),
                                                     if1);
        srh.GetStaticRouting(ip2)->AddNetworkRouteTo(Ipv4Address("10.1.0.0"),
                                                     Ipv4Mask("255.255.0.0"),
                                                     bnIf.GetAddress(0),
                                                     if2);
    }

    Ptr<UniformRandomVariable> startVar = CreateObject<UniformRandomVariable>();
    startVar->SetAttribute("Min", DoubleValue(0.0));
    startVar->SetAttribute("Max", DoubleValue(1.0));
    startVar->SetStream(1);
    std::vector<Ptr<PacketSink>> sinks(nFlows);
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkHelper.Install(receivers.Get(i));
        sa.Start(Seconds(0.0));
        sinks[i] = DynamicCast<PacketSink>(sa.Get(0));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(64 * 1024));
        ApplicationContainer ba = bulk.Install(senders.Get(i));
        const double start = startVar->GetValue();
        ba.Start(Seconds(start));
        if (!trace.empty())
        {
            if (!g_trace)
            {
                g_trace = std::fopen(trace.c_str(), "w");
            }
            Simulator::Schedule(Seconds(start) + MicroSeconds(1),
                                &ConnectTrace,
                                i,
                                senders.Get(i)->GetId(),
                                Seconds(start));
        }
        if (i == 0 && !series.empty())
        {
            g_series = std::fopen(series.c_str(), "w");
            Simulator::Schedule(Seconds(start) + MicroSeconds(1),
                                &ConnectSeries,
                                senders.Get(0)->GetId());
        }
    }

    qd->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    Simulator::Schedule(Seconds(0), &SampleLength, qd);
    if (g_trace)
    {
        Simulator::Schedule(Seconds(0), &SnapAll, traceEvery);
    }
    std::vector<uint64_t> rxAtWarmup(nFlows, 0);
    QueueDisc::Stats statsAtWarmup;
    Simulator::Schedule(Seconds(warmup), [&]() {
        g_measuring = true;
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
        statsAtWarmup = qd->GetStats();
    });
    Simulator::Stop(Seconds(simTime));
    Simulator::Run();

    const double measured = simTime - warmup;
    double sum = 0;
    double sumSq = 0;
    uint64_t rx = 0;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        const double g = (sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8.0 / measured;
        rx += sinks[i]->GetTotalRx() - rxAtWarmup[i];
        sum += g;
        sumSq += g * g;
    }
    const QueueDisc::Stats& st = qd->GetStats();
    std::printf("simulator=ns3\n");
    std::printf("disc=%s\n", disc.c_str());
    std::printf("n_flows=%u\n", nFlows);
    std::printf("goodput_bps=%.0f\n", rx * 8.0 / measured);
    std::printf("mean_delay_ms=%.4f\n", g_sojournCount ? 1e3 * g_sojournSum / g_sojournCount : 0.0);
    std::printf("mean_len_packets=%.3f\n", g_lenCount ? g_lenSum / g_lenCount : 0.0);
    std::printf("drops=%llu\n",
                (unsigned long long)(st.nTotalDroppedPackets - statsAtWarmup.nTotalDroppedPackets));
    std::printf("marks=%llu\n",
                (unsigned long long)(st.nTotalMarkedPackets - statsAtWarmup.nTotalMarkedPackets));
    std::printf("jain=%.5f\n", sumSq > 0 ? sum * sum / (nFlows * sumSq) : 0.0);
    uint64_t rxFirstHalf = 0;
    for (uint32_t i = 0; i < nFlows / 2; ++i)
    {
        rxFirstHalf += sinks[i]->GetTotalRx() - rxAtWarmup[i];
    }
    std::printf("goodput_first_half_bps=%.0f\n", rxFirstHalf * 8.0 / measured);
    std::fflush(stdout);
    if (g_series)
    {
        std::fclose(g_series);
    }
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    return 0;
}
