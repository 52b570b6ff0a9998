// DUMBBELL-N for ns-3 (written against Debian's libns3-dev, ns-3.37).
//
//   dumbbell N SIMTIME SEED [SACK]
//
// SACK is 1 (default) or 0.  ns-2's Agent/TCP/Newreno has no SACK, but
// ns-3.37's SACK-less loss recovery (an RFC 6675 scoreboard fed with
// emulated "Reno SACKs") degrades badly under RED's bursts of drops: with
// SACK off, N=10 delivers ~40% less than ns-2; with SACK on, the two agree
// within ~2% (see benchmarks/README.md).  Data segments carry no SACK
// option either way (it only appears on SYNs and on ACKs), so on-the-wire
// data sizes are the same.
//
// N TCP NewReno bulk flows, each from its own sender host S_i to its own
// receiver host D_i, across routers R1 -> R2:
//
//   S_i --1Gb/s,1ms-- R1 ==100Mb/s,20ms, RED== R2 --1Gb/s,1ms-- D_i
//
// RED (RedQueueDisc) on R1's bottleneck device: packet mode, MinTh 30,
// MaxTh 90, LInterm 10, QW 0.002, 200 packets, not gentle, no ECN.  The
// bottleneck devices' own queues hold 1 packet, so the queue disc is the
// real queue; R2's bottleneck device gets a 10000-packet FIFO queue disc.
// Access links have no queue disc and a 10000-packet DropTail device queue
// (never drops).  1000-byte segments, no timestamps, no delayed
// ACKs, initial window 1, start times uniform in [0,1] s.  Routing is
// static (a default route on each host, one aggregate route per router).
//
// At the end it prints one key=value per line (see benchmarks/README.md):
//   simulator=ns3
//   n_flows=N
//   sim_time_s=...
//   delivered_packets=...   in-order payload bytes at the sinks / 1000
//   goodput_bps=...         in-order payload bits at the sinks / sim time
//   bottleneck_drops=...    all drops in the RED queue disc
//   bottleneck_early_drops=...   RED "Unforced drop"
//   bottleneck_forced_drops=...  every other drop reason (above MaxTh, limit)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    if (argc != 4 && argc != 5)
    {
        std::fprintf(stderr, "usage: %s N SIMTIME SEED [SACK]\n", argv[0]);
        return 2;
    }
    const uint32_t nFlows = std::strtoul(argv[1], nullptr, 10);
    const double simTime = std::strtod(argv[2], nullptr);
    const uint32_t seed = std::strtoul(argv[3], nullptr, 10);
    const bool sack = argc < 5 || std::strtoul(argv[4], nullptr, 10) != 0;
    if (nFlows < 1 || simTime <= 0 || seed < 1)
    {
        std::fprintf(stderr, "N >= 1, SIMTIME > 0 and SEED >= 1 required\n");
        return 2;
    }

    const uint32_t payload = 1000;
    const uint32_t ipTcpHeader = 40; // no TCP options on data segments
    const uint32_t bigBuffer = 16 * 1024 * 1024; // never the limit
    const uint16_t port = 5000;

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);

    // ---- TCP: NewReno as close to ns-2's Agent/TCP/Newreno as it gets ----
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    // Window inflation/deflation in fast recovery (RFC 6582) rather than
    // the default Proportional Rate Reduction.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(payload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    // Routers have up to N+1 interfaces; the weak end-system model would
    // scan all their addresses for every forwarded packet.
    Config::SetDefault("ns3::Ipv4::WeakEsModel", BooleanValue(false));

    // ---- topology ----
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
    stack.Install(receivers);

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("20ms"));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer bnDevs = bottleneck.Install(r1, r2);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("10000p"));

    // Queue discs go on before addresses are assigned: address assignment
    // installs the default (FqCoDel) queue disc on devices without one.
    TrafficControlHelper redTch;
    redTch.SetRootQueueDisc("ns3::RedQueueDisc",
                            "MaxSize", QueueSizeValue(QueueSize("200p")),
                            "MinTh", DoubleValue(30),
                            "MaxTh", DoubleValue(90),
                            "LInterm", DoubleValue(10),
                            "QW", DoubleValue(0.002),
                            "Gentle", BooleanValue(false),
                            "UseEcn", BooleanValue(false),
                            "UseHardDrop", BooleanValue(true),
                            "Wait", BooleanValue(true),
                            "MeanPktSize", UintegerValue(payload + ipTcpHeader),
                            "LinkBandwidth", DataRateValue(DataRate("100Mbps")),
                            "LinkDelay", TimeValue(MilliSeconds(20)));
    QueueDiscContainer redQd = redTch.Install(bnDevs.Get(0));
    TrafficControlHelper fifoTch;
    fifoTch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("10000p")));
    fifoTch.Install(bnDevs.Get(1));

    Ipv4AddressHelper addr;
    addr.SetBase("10.3.0.0", "255.255.255.252");
    Ipv4InterfaceContainer bnIf = addr.Assign(bnDevs);

    TrafficControlHelper noTch; // used only to remove the default queue disc
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
    // Routers: the access subnets are connected routes; everything on the
    // far side goes across the bottleneck.
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

    // ---- applications ----
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
        // Large writes keep the number of packet objects in the send
        // buffers small; TCP still segments them into 1000-byte segments.
        bulk.SetAttribute("SendSize", UintegerValue(64 * 1024));
        ApplicationContainer ba = bulk.Install(senders.Get(i));
        ba.Start(Seconds(startVar->GetValue()));
    }

    Simulator::Stop(Seconds(simTime));
    Simulator::Run();

    uint64_t rxBytes = 0;
    for (const auto& s : sinks)
    {
        rxBytes += s->GetTotalRx();
    }
    const QueueDisc::Stats& st = redQd.Get(0)->GetStats();
    uint64_t early = 0;
    for (const auto& kv : st.nDroppedPacketsBeforeEnqueue)
    {
        if (kv.first == RedQueueDisc::UNFORCED_DROP)
        {
            early += kv.second;
        }
    }
    for (const auto& kv : st.nDroppedPacketsAfterDequeue)
    {
        if (kv.first == RedQueueDisc::UNFORCED_DROP)
        {
            early += kv.second;
        }
    }
    const uint64_t drops = st.nTotalDroppedPackets;

    std::printf("simulator=ns3\n");
    std::printf("n_flows=%u\n", nFlows);
    std::printf("tcp_sack=%d\n", sack ? 1 : 0);
    std::printf("sim_time_s=%g\n", Simulator::Now().GetSeconds());
    std::printf("delivered_packets=%llu\n", (unsigned long long)(rxBytes / payload));
    std::printf("goodput_bps=%.0f\n", rxBytes * 8.0 / simTime);
    std::printf("bottleneck_drops=%llu\n", (unsigned long long)drops);
    std::printf("bottleneck_early_drops=%llu\n", (unsigned long long)early);
    std::printf("bottleneck_forced_drops=%llu\n", (unsigned long long)(drops - early));
    std::fflush(stdout);

    Simulator::Destroy();
    return 0;
}
