// radiotcp side-by-side benchmark: the wired reference scenario in ns-3.
//
//   server --[wan: 1 Mb/s, 100 ms]--> router --[access: 384 kb/s, 25 ms]--> client
//
// N bulk TCP flows run from the server to the client for D seconds. By default
// they are NewReno with classic recovery and no SACK / timestamps / window
// scaling / limited transmit; `--sack`, `--cc`, `--recovery`, `--timestamps`,
// `--limitedTransmit` and `--iw` switch on SACK (RFC 2018/6675), CUBIC, PRR
// (RFC 6937), timestamps, RFC 3042 and a larger initial window (window scaling
// stays off: the receive window is 65535 bytes in every configuration).
// The bottleneck is the router's access device. radiotcp's drop-tail queue
// counts the packets WAITING behind the one being serialised; the closest ns-3
// equivalent is a FifoQueueDisc plus a device queue of one packet (see
// docs/ns3-comparison.md for why the disc limit is `queue - 1`).
//
// Prints exactly one JSON line on stdout. `--traceFlow=i` additionally writes
// the TCP state of flow i (cwnd, ssthresh, RTO, congestion state, SRTT, RTT
// samples, data segments sent, ACKs received) and the bottleneck drops to
// stderr, one event per line. `--counters=1` adds per-flow loss-recovery
// counters (timeouts, fast retransmits, retransmissions, duplicate deliveries,
// time in recovery/loss) and the bottleneck's busy time to the JSON line.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kSegmentSize = 1460;   // bytes of payload; 1500-byte IP packets
constexpr uint32_t kTsOptionBytes = 12;   // timestamps option (10) + 2 NOPs on every segment
constexpr uint32_t kRcvBuf = 65535;       // receive buffer = advertised window (bytes)
constexpr uint32_t kSndBuf = 4 * kRcvBuf; // ample, so BulkSend never starves TCP
constexpr uint16_t kBasePort = 5000;
constexpr const char* kLargeQueue = "1000p";

// Bottleneck backlog bookkeeping: packets waiting in the queue disc plus in the
// device queue (the packet being serialised is in neither).
struct Backlog
{
    uint32_t disc = 0;
    uint32_t device = 0;
    uint32_t max = 0;
} g_backlog;

void
UpdateMax()
{
    uint32_t now = g_backlog.disc + g_backlog.device;
    if (now > g_backlog.max)
    {
        g_backlog.max = now;
    }
}

void
DiscBacklog(uint32_t, uint32_t v)
{
    g_backlog.disc = v;
    UpdateMax();
}

void
DeviceBacklog(uint32_t, uint32_t v)
{
    g_backlog.device = v;
    UpdateMax();
}

// --- optional per-flow tracing to stderr ----------------------------------

void
TraceU32(std::string what, uint32_t, uint32_t v)
{
    std::cerr << Simulator::Now().GetSeconds() << ' ' << what << ' ' << v << '\n';
}

void
TraceTime(std::string what, Time, Time v)
{
    std::cerr << Simulator::Now().GetSeconds() << ' ' << what << ' ' << v.GetSeconds() << '\n';
}

void
TraceCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    std::cerr << Simulator::Now().GetSeconds() << " state " << TcpSocketState::TcpCongStateName[v]
              << '\n';
}

void
TraceDrop(Ptr<const QueueDiscItem>)
{
    std::cerr << Simulator::Now().GetSeconds() << " drop\n";
}

// Data segments sent ("tx <seq> <len>", "retx <seq> <len>"; relative sequence
// numbers, first data byte = 1) and ACKs received ("ack <ackno>").
void
TraceTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    static SequenceNumber32 highTx(0);
    if (p->GetSize() == 0)
    {
        return;
    }
    bool retx = h.GetSequenceNumber() < highTx;
    highTx = std::max(highTx, h.GetSequenceNumber() + SequenceNumber32(p->GetSize()));
    std::cerr << Simulator::Now().GetSeconds() << (retx ? " retx " : " tx ")
              << h.GetSequenceNumber().GetValue() << ' ' << p->GetSize() << '\n';
}

void
TraceRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetFlags() & TcpHeader::ACK)
    {
        std::cerr << Simulator::Now().GetSeconds() << " ack " << h.GetAckNumber().GetValue()
                  << '\n';
    }
}

void
HookFlow(Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    if (!s)
    {
        std::cerr << "traceFlow: socket not created yet\n";
        return;
    }
    const std::pair<const char*, const char*> u32[] = {{"CongestionWindow", "cwnd"},
                                                        {"SlowStartThreshold", "ssthresh"},
                                                        {"BytesInFlight", "inflight"}};
    for (const auto& [source, label] : u32)
    {
        s->TraceConnectWithoutContext(source, MakeBoundCallback(&TraceU32, std::string(label)));
    }
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&TraceTime, std::string("rto")));
    s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&TraceTime, std::string("srtt")));
    s->TraceConnectWithoutContext("LastRTT", MakeBoundCallback(&TraceTime, std::string("rtt")));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&TraceCongState));
    s->TraceConnectWithoutContext("Tx", MakeCallback(&TraceTx));
    s->TraceConnectWithoutContext("Rx", MakeCallback(&TraceRx));
}

// --- per-flow loss-recovery counters (--counters=1) ---------------------------
//
// Sender side, from the socket's trace sources:
//   * timeouts: RTO expiries. TcpSocketBase::ReTxTimeout is the only place that
//     doubles m_rto (RFC 6298 5.5); everywhere else the RTO is recomputed from
//     SRTT/RTTVAR. An "RTO" trace event whose new value is min(2 x old, 60 s)
//     is therefore an expiry, including repeated expiries in CA_LOSS, which do
//     not change the congestion state.
//   * fast_retransmits: entries into CA_RECOVERY (3rd dupACK, RFC 6582).
//   * loss_entries: entries into CA_LOSS (first expiry of a timeout episode).
//   * retransmissions / data_segments_sent: the "Retransmission" and "Tx" traces.
//   * recovery_s / loss_s: time spent in CA_RECOVERY and CA_LOSS.
// Receiver side (client's Ipv4L3Protocol "LocalDeliver"):
//   * data_segments_rx / dup_segments_rx: data segments reaching the client, and
//     those whose bytes had all been received before (wasted bottleneck time,
//     e.g. go-back-N retransmissions after an RTO).

struct FlowStats
{
    uint64_t timeouts = 0;
    uint64_t fastRetransmits = 0;
    uint64_t lossEntries = 0;
    uint64_t retransmissions = 0;
    uint64_t dataSent = 0;
    uint64_t dataRx = 0;
    uint64_t dupRx = 0;
    uint64_t dupRxBytes = 0;
    uint64_t dupRxByState[3] = {0, 0, 0}; // sent in CA_OPEN/DISORDER, CA_RECOVERY, CA_LOSS
    std::map<uint32_t, int> sentIn;       // seq -> state class of its latest transmission
    double recoveryS = 0;
    double lossS = 0;
    TcpSocketState::TcpCongState_t state = TcpSocketState::CA_OPEN;
    double stateSince = 0;
    std::map<uint32_t, uint32_t> rx; // received byte ranges [start, end), merged
};

std::vector<FlowStats> g_flows;

// Bottleneck transmitter busy time (PhyTxBegin .. PhyTxEnd).
struct Busy
{
    double since = -1;
    double total = 0;
    uint64_t dataPkts = 0;
} g_busy;

void
CountRto(uint32_t i, Time oldV, Time newV)
{
    Time doubled = Min(oldV + oldV, Seconds(60));
    if (newV == doubled && newV != oldV)
    {
        g_flows[i].timeouts++;
    }
}

void
CountState(uint32_t i,
           TcpSocketState::TcpCongState_t,
           TcpSocketState::TcpCongState_t v)
{
    FlowStats& f = g_flows[i];
    double now = Simulator::Now().GetSeconds();
    if (f.state == TcpSocketState::CA_RECOVERY)
    {
        f.recoveryS += now - f.stateSince;
    }
    else if (f.state == TcpSocketState::CA_LOSS)
    {
        f.lossS += now - f.stateSince;
    }
    if (v == TcpSocketState::CA_RECOVERY)
    {
        f.fastRetransmits++;
    }
    else if (v == TcpSocketState::CA_LOSS)
    {
        f.lossEntries++;
    }
    f.state = v;
    f.stateSince = now;
}

void
CountStateClose(FlowStats& f, double now)
{
    if (f.state == TcpSocketState::CA_RECOVERY)
    {
        f.recoveryS += now - f.stateSince;
    }
    else if (f.state == TcpSocketState::CA_LOSS)
    {
        f.lossS += now - f.stateSince;
    }
    f.stateSince = now;
}

int
StateClass(TcpSocketState::TcpCongState_t s)
{
    return s == TcpSocketState::CA_RECOVERY ? 1 : s == TcpSocketState::CA_LOSS ? 2 : 0;
}

void
CountTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        FlowStats& f = g_flows[i];
        f.dataSent++;
        f.sentIn[h.GetSequenceNumber().GetValue()] = StateClass(f.state);
    }
}

void
CountRetx(uint32_t i,
          Ptr<const Packet>,
          const TcpHeader&,
          const Address&,
          const Address&,
          Ptr<const TcpSocketBase>)
{
    g_flows[i].retransmissions++;
}

void
CountDelivery(const Ipv4Header&, Ptr<const Packet> packet, uint32_t)
{
    TcpHeader th;
    Ptr<Packet> p = packet->Copy();
    if (p->RemoveHeader(th) == 0)
    {
        return;
    }
    uint32_t len = p->GetSize();
    uint16_t port = th.GetDestinationPort();
    if (len == 0 || port < kBasePort || static_cast<size_t>(port - kBasePort) >= g_flows.size())
    {
        return;
    }
    FlowStats& f = g_flows[port - kBasePort];
    f.dataRx++;
    uint32_t s = th.GetSequenceNumber().GetValue();
    uint32_t e = s + len;
    // Bytes of [s, e) already received.
    uint32_t seen = 0;
    for (auto it = f.rx.upper_bound(s); it != f.rx.begin();)
    {
        --it;
        if (it->second <= s)
        {
            break;
        }
        seen += std::min(e, it->second) - std::max(s, it->first);
        break;
    }
    for (auto it = f.rx.upper_bound(s); it != f.rx.end() && it->first < e; ++it)
    {
        seen += std::min(e, it->second) - it->first;
    }
    if (seen >= len)
    {
        f.dupRx++;
        auto st = f.sentIn.find(th.GetSequenceNumber().GetValue());
        if (st != f.sentIn.end())
        {
            f.dupRxByState[st->second]++;
        }
    }
    f.dupRxBytes += seen;
    // Merge [s, e) into the set.
    auto it = f.rx.upper_bound(s);
    if (it != f.rx.begin())
    {
        auto prev = std::prev(it);
        if (prev->second >= s)
        {
            s = prev->first;
            e = std::max(e, prev->second);
            f.rx.erase(prev);
        }
    }
    it = f.rx.lower_bound(s);
    while (it != f.rx.end() && it->first <= e)
    {
        e = std::max(e, it->second);
        it = f.rx.erase(it);
    }
    f.rx[s] = e;
}

void
BusyBegin(Ptr<const Packet> p)
{
    g_busy.since = Simulator::Now().GetSeconds();
    if (p->GetSize() > 100)
    {
        g_busy.dataPkts++;
    }
}

void
BusyEnd(Ptr<const Packet>)
{
    if (g_busy.since >= 0)
    {
        g_busy.total += Simulator::Now().GetSeconds() - g_busy.since;
        g_busy.since = -1;
    }
}

void
HookCounters(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    if (!s)
    {
        return;
    }
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&CountRto, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CountState, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountTx, i));
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&CountRetx, i));
}

std::string
Num(double v)
{
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t flows = 1;
    double duration = 60.0;
    uint32_t queue = 50;
    double minRtoMs = 1000.0;
    uint32_t seed = 1;
    uint64_t run = 1;
    int32_t traceFlow = -1;
    bool counters = false;
    bool sack = false;
    std::string cc = "newreno";
    std::string recovery = "classic";
    bool timestamps = false;
    bool limitedTransmit = false;
    uint32_t iw = 1;
    uint32_t segmentSize = 0;
    bool hystart = false;
    double cubicBeta = 0.7;
    double cubicC = 0.4;
    bool fastConvergence = true;
    bool tcpFriendliness = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of bulk flows (all start at t=0)", flows);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("queue",
                 "bottleneck buffer in packets waiting (excluding the one in service)",
                 queue);
    cmd.AddValue("minRto", "minimum RTO in milliseconds", minRtoMs);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("traceFlow", "flow index to trace on stderr (-1: none)", traceFlow);
    cmd.AddValue("counters",
                 "add per-flow loss-recovery counters and bottleneck busy time to the JSON",
                 counters);
    cmd.AddValue("sack", "TcpSocketBase::Sack: SACK option and RFC 6675 recovery", sack);
    cmd.AddValue("cc", "congestion control: newreno, cubic or linuxreno (socket type)", cc);
    cmd.AddValue("recovery",
                 "recovery algorithm: classic or prr (TcpL4Protocol::RecoveryType)",
                 recovery);
    cmd.AddValue("timestamps",
                 "TcpSocketBase::Timestamp (RFC 7323); the segment size drops to 1448 so that "
                 "data packets stay 1500 bytes",
                 timestamps);
    cmd.AddValue("limitedTransmit", "TcpSocketBase::LimitedTransmit (RFC 3042)", limitedTransmit);
    cmd.AddValue("iw", "TcpSocket::InitialCwnd in segments", iw);
    cmd.AddValue("segmentSize",
                 "TcpSocket::SegmentSize in bytes (0: 1460, or 1448 with --timestamps)",
                 segmentSize);
    cmd.AddValue("hystart",
                 "TcpCubic::HyStart (--cc=cubic only; ns-3's default is true)",
                 hystart);
    cmd.AddValue("cubicBeta", "TcpCubic::Beta", cubicBeta);
    cmd.AddValue("cubicC", "TcpCubic::C", cubicC);
    cmd.AddValue("fastConvergence", "TcpCubic::FastConvergence", fastConvergence);
    cmd.AddValue("tcpFriendliness", "TcpCubic::TcpFriendliness", tcpFriendliness);
    cmd.Parse(argc, argv);

    if (flows < 1 || duration <= 0 || queue < 1 || iw < 1)
    {
        std::cerr << "need flows >= 1, duration > 0, queue >= 1, iw >= 1\n";
        return 2;
    }
    TypeId socketType;
    if (cc == "newreno")
    {
        socketType = TcpNewReno::GetTypeId();
    }
    else if (cc == "cubic")
    {
        socketType = TcpCubic::GetTypeId();
    }
    else if (cc == "linuxreno")
    {
        socketType = TcpLinuxReno::GetTypeId();
    }
    else
    {
        std::cerr << "--cc must be newreno, cubic or linuxreno\n";
        return 2;
    }
    TypeId recoveryType;
    if (recovery == "classic")
    {
        recoveryType = TcpClassicRecovery::GetTypeId();
    }
    else if (recovery == "prr")
    {
        recoveryType = TcpPrrRecovery::GetTypeId();
    }
    else
    {
        std::cerr << "--recovery must be classic or prr\n";
        return 2;
    }
    if (segmentSize == 0)
    {
        segmentSize = timestamps ? kSegmentSize - kTsOptionBytes : kSegmentSize;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    // --- TCP: by default plain NewReno as in RFC 5681/6582 -------------------
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(socketType));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(recoveryType));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                       UintegerValue(std::numeric_limits<uint32_t>::max()));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kRcvBuf));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kSndBuf));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    // A bulk flow must never be torn down by repeated timeouts (default 6).
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(minRtoMs * 1000.0)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    // CUBIC's knobs (read only when --cc=cubic). HyStart is off by default here, unlike
    // ns-3's default: radiotcp's HyStart++ (RFC 9406) is a different algorithm from ns-3's
    // Linux-2.6-era HyStart (ACK train + delay), and is off by default too.
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(cubicBeta));
    Config::SetDefault("ns3::TcpCubic::C", DoubleValue(cubicC));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(fastConvergence));
    Config::SetDefault("ns3::TcpCubic::TcpFriendliness", BooleanValue(tcpFriendliness));

    // --- topology -----------------------------------------------------------
    NodeContainer nodes;
    nodes.Create(3); // 0 server, 1 router, 2 client
    Ptr<Node> server = nodes.Get(0);
    Ptr<Node> router = nodes.Get(1);
    Ptr<Node> client = nodes.Get(2);

    PointToPointHelper wan;
    wan.SetDeviceAttribute("DataRate", StringValue("1Mbps"));
    wan.SetChannelAttribute("Delay", StringValue("100ms"));
    wan.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(kLargeQueue));
    NetDeviceContainer wanDevs = wan.Install(server, router);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("384kbps"));
    access.SetChannelAttribute("Delay", StringValue("25ms"));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(kLargeQueue));
    NetDeviceContainer accessDevs = access.Install(router, client);

    Ptr<PointToPointNetDevice> bottleneck = DynamicCast<PointToPointNetDevice>(accessDevs.Get(0));
    Ptr<Queue<Packet>> deviceQueue = bottleneck->GetQueue();
    deviceQueue->SetMaxSize(QueueSize("1p"));

    InternetStackHelper stack;
    stack.Install(nodes);

    // Queue discs go in before addresses are assigned, so that the address
    // helper does not install its default (FqCoDel) disc.
    TrafficControlHelper bottleneckTc;
    bottleneckTc.SetRootQueueDisc("ns3::FifoQueueDisc",
                                  "MaxSize",
                                  QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queue - 1)));
    QueueDiscContainer bottleneckDiscs = bottleneckTc.Install(accessDevs.Get(0));
    Ptr<QueueDisc> bottleneckDisc = bottleneckDiscs.Get(0);

    TrafficControlHelper largeTc;
    largeTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(kLargeQueue));
    largeTc.Install(wanDevs);
    largeTc.Install(accessDevs.Get(1));

    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    addr.Assign(wanDevs);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer accessIfs = addr.Assign(accessDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Ipv4Address clientAddr = accessIfs.GetAddress(1);

    bottleneckDisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&DiscBacklog));
    deviceQueue->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&DeviceBacklog));

    // --- applications -------------------------------------------------------
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<Ptr<BulkSendApplication>> senders;
    for (uint32_t i = 0; i < flows; ++i)
    {
        uint16_t port = kBasePort + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(client);
        sinkApp.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(clientAddr, port));
        source.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
        source.SetAttribute("SendSize", UintegerValue(segmentSize));
        ApplicationContainer srcApp = source.Install(server);
        srcApp.Start(Seconds(0));
        senders.push_back(DynamicCast<BulkSendApplication>(srcApp.Get(0)));
    }

    if (counters)
    {
        // Off by default, so that benchmark timings and event counts are those
        // of the plain scenario (the hooks add one event per flow).
        g_flows.resize(flows);
        for (uint32_t i = 0; i < flows; ++i)
        {
            Simulator::Schedule(NanoSeconds(1), &HookCounters, i, senders[i]);
        }
        client->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "LocalDeliver",
            MakeCallback(&CountDelivery));
        bottleneck->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&BusyBegin));
        bottleneck->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&BusyEnd));
    }

    if (traceFlow >= 0 && static_cast<uint32_t>(traceFlow) < flows)
    {
        // The socket exists once the application has started at t = 0.
        Simulator::Schedule(NanoSeconds(1), &HookFlow, senders[traceFlow]);
        bottleneckDisc->TraceConnectWithoutContext("Drop", MakeCallback(&TraceDrop));
    }

    Simulator::Stop(Seconds(duration));

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    uint64_t events = Simulator::GetEventCount();

    // --- results ------------------------------------------------------------
    std::vector<double> goodput;
    double total = 0;
    for (const auto& sink : sinks)
    {
        double kbps = static_cast<double>(sink->GetTotalRx()) * 8.0 / duration / 1000.0;
        goodput.push_back(kbps);
        total += kbps;
    }
    const QueueDisc::Stats& st = bottleneckDisc->GetStats();

    std::ostringstream js;
    js << "{\"flows\": " << flows << ", \"duration_s\": " << Num(duration) << ", \"goodput_kbps\": [";
    for (size_t i = 0; i < goodput.size(); ++i)
    {
        js << (i ? ", " : "") << Num(goodput[i]);
    }
    js << "], \"goodput_kbps_total\": " << Num(total) << ", \"wall_time_s\": " << Num(wall)
       << ", \"events\": " << events << ", \"drops_queue\": "
       << (st.nTotalDroppedPackets + deviceQueue->GetTotalDroppedPackets())
       << ", \"drops_device\": " << deviceQueue->GetTotalDroppedPackets()
       << ", \"queue_waiting_p\": " << queue << ", \"queue_disc_limit_p\": " << (queue - 1)
       << ", \"device_queue_p\": 1, \"max_backlog_p\": " << g_backlog.max
       << ", \"bottleneck_tx_pkts\": " << st.nTotalDequeuedPackets
       << ", \"min_rto_ms\": " << Num(minRtoMs) << ", \"seed\": " << seed << ", \"run\": " << run
       << ", \"sack\": " << (sack ? "true" : "false") << ", \"cc\": \"" << cc
       << "\", \"recovery\": \"" << recovery
       << "\", \"timestamps\": " << (timestamps ? "true" : "false")
       << ", \"limited_transmit\": " << (limitedTransmit ? "true" : "false")
       << ", \"iw\": " << iw << ", \"segment_size\": " << segmentSize;
    if (cc == "cubic")
    {
        js << ", \"hystart\": " << (hystart ? "true" : "false")
           << ", \"cubic_beta\": " << Num(cubicBeta) << ", \"cubic_c\": " << Num(cubicC)
           << ", \"fast_convergence\": " << (fastConvergence ? "true" : "false")
           << ", \"tcp_friendliness\": " << (tcpFriendliness ? "true" : "false");
    }
    // Per-flow loss-recovery counters (see FlowStats), with --counters only.
    double end = Simulator::Now().GetSeconds();
    for (auto& f : g_flows)
    {
        CountStateClose(f, end);
    }
    if (g_busy.since >= 0)
    {
        g_busy.total += end - g_busy.since;
    }
    auto arr = [&js](const char* name, auto get) {
        js << ", \"" << name << "\": [";
        for (size_t i = 0; i < g_flows.size(); ++i)
        {
            js << (i ? ", " : "") << Num(static_cast<double>(get(g_flows[i])));
        }
        js << "]";
    };
    if (!counters)
    {
        js << "}";
    }
    else
    {
        arr("timeouts", [](const FlowStats& f) { return f.timeouts; });
        arr("loss_entries", [](const FlowStats& f) { return f.lossEntries; });
        arr("fast_retransmits", [](const FlowStats& f) { return f.fastRetransmits; });
        arr("retransmissions", [](const FlowStats& f) { return f.retransmissions; });
        arr("data_segments_sent", [](const FlowStats& f) { return f.dataSent; });
        arr("data_segments_rx", [](const FlowStats& f) { return f.dataRx; });
        arr("dup_segments_rx", [](const FlowStats& f) { return f.dupRx; });
        arr("dup_rx_sent_open", [](const FlowStats& f) { return f.dupRxByState[0]; });
        arr("dup_rx_sent_recovery", [](const FlowStats& f) { return f.dupRxByState[1]; });
        arr("dup_rx_sent_loss", [](const FlowStats& f) { return f.dupRxByState[2]; });
        arr("recovery_s", [](const FlowStats& f) { return f.recoveryS; });
        arr("loss_s", [](const FlowStats& f) { return f.lossS; });
        js << ", \"bottleneck_busy_s\": " << Num(g_busy.total)
           << ", \"bottleneck_idle_s\": " << Num(end - g_busy.total)
           << ", \"bottleneck_data_pkts\": " << g_busy.dataPkts << "}";
    }
    std::cout << js.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
