// radiotcp side-by-side benchmark: one LTE cell in ns-3 (LENA), bulk TCP
// downloads to N static UEs.
//
//   remote host --[p2p: 10 Gb/s, D ms, MTU 1500]--> PGW/SGW --[S1-U]--> eNB ~~~> UE 1..N
//
// * 1 eNB, 1 cell, 20 MHz (100 PRB) DL and UL, PfFfMacScheduler, ideal RRC,
//   RLC AM for every bearer with a large transmit buffer, LENA's default PHY
//   (Friis path loss, no fading) except the transmit powers, set explicitly:
//   eNB 46 dBm, UE 23 dBm.
// * UEs uniformly distributed (by area) in the annulus 35 m .. radius around
//   the eNB, static; positions drawn from the run's random stream (--run).
// * One TCP NewReno bulk download per UE (BulkSendApplication on the remote
//   host, PacketSink on the UE), no SACK, timestamps on, delayed ACKs (one ACK
//   per two segments), 4 MB socket buffers. A UE's sender is installed when
//   that UE's data radio bearer exists (UE RRC "DrbCreated"), so that no SYN
//   is lost to a bearer that is not set up yet.
//
// Goodput counts the bytes each PacketSink received between the warm-up and
// the end. Uplink ACKs are the TCP segments without payload (SYN, FIN and RST
// excluded) that a UE's IPv4 layer sends (Ipv4L3Protocol "SendOutgoing", i.e.
// what enters the UE's LTE uplink). DL MCS/TBS are averaged over the UE's DL
// DCIs (eNB MAC "DlScheduling": new transmissions and HARQ retransmissions,
// transport block 1) after the warm-up.
//
// Prints exactly one JSON line on stdout.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#ifndef RADIOTCP_NS3_VERSION
#define RADIOTCP_NS3_VERSION "unknown"
#endif

using namespace ns3;

namespace
{

constexpr uint16_t kPort = 5000;
constexpr uint32_t kSocketBuf = 4 * 1024 * 1024;         // SndBuf and RcvBuf (bytes)
constexpr uint32_t kRlcTxBuffer = 10 * 1024 * 1024;       // RLC AM transmit buffer (bytes)
constexpr double kMinRadiusM = 35.0;
constexpr uint32_t kSrsPeriodicities[] = {40, 80, 160, 320}; // LENA default first

struct UeStats
{
    uint64_t acks = 0;            // pure ACKs sent, whole run
    uint64_t acksAtWarmup = 0;    // snapshot at the end of the warm-up
    uint64_t rxAtWarmup = 0;      // PacketSink bytes at the end of the warm-up
    uint64_t dlDcis = 0;          // DL DCIs after the warm-up
    double mcsSum = 0;            // sum of mcsTb1 over those DCIs
    double tbsSum = 0;            // sum of sizeTb1 (bytes) over those DCIs
    double bearerReadyS = -1;     // time the UE's DRB was created
    double distanceM = 0;
};

std::vector<UeStats> g_ue;
std::vector<int32_t> g_rntiToUe(65536, -1);
bool g_warm = false;

struct AppSetup
{
    Ptr<Node> remoteHost;
    std::vector<Ipv4Address> ueAddr;
    uint32_t sendSize = 1448;
} g_apps;

// UE i's IPv4 layer sends a packet; count TCP segments without payload.
void
UeSendOutgoing(uint32_t i, const Ipv4Header& ip, Ptr<const Packet> p, uint32_t)
{
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    TcpHeader th;
    uint32_t hdr = p->PeekHeader(th);
    if (hdr == 0 || p->GetSize() > hdr)
    {
        return;
    }
    uint8_t flags = th.GetFlags();
    if ((flags & TcpHeader::ACK) && !(flags & (TcpHeader::SYN | TcpHeader::FIN | TcpHeader::RST)))
    {
        g_ue[i].acks++;
    }
}

void
EnbDlScheduling(DlSchedulingCallbackInfo info)
{
    if (!g_warm)
    {
        return;
    }
    int32_t i = g_rntiToUe[info.rnti];
    if (i < 0)
    {
        return;
    }
    UeStats& s = g_ue[i];
    s.dlDcis++;
    s.mcsSum += info.mcsTb1;
    s.tbsSum += info.sizeTb1;
}

void
UeConnectionEstablished(uint32_t i, uint64_t, uint16_t, uint16_t rnti)
{
    g_rntiToUe[rnti] = static_cast<int32_t>(i);
}

// The UE's data radio bearer exists: start its download now.
void
UeDrbCreated(uint32_t i, uint64_t, uint16_t, uint16_t, uint8_t)
{
    if (g_ue[i].bearerReadyS >= 0)
    {
        return;
    }
    g_ue[i].bearerReadyS = Simulator::Now().GetSeconds();
    BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(g_apps.ueAddr[i], kPort));
    source.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
    source.SetAttribute("SendSize", UintegerValue(g_apps.sendSize));
    ApplicationContainer app = source.Install(g_apps.remoteHost);
    app.Start(Seconds(0)); // relative to the application's initialisation, i.e. now
}

void
WarmupSnapshot(const std::vector<Ptr<PacketSink>>* sinks)
{
    g_warm = true;
    for (size_t i = 0; i < g_ue.size(); ++i)
    {
        g_ue[i].acksAtWarmup = g_ue[i].acks;
        g_ue[i].rxAtWarmup = (*sinks)[i]->GetTotalRx();
    }
}

std::string
Num(double v)
{
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

template <typename F>
void
JsonArray(std::ostringstream& js, const char* name, size_t n, F get)
{
    js << ", \"" << name << "\": [";
    for (size_t i = 0; i < n; ++i)
    {
        js << (i ? ", " : "") << Num(static_cast<double>(get(i)));
    }
    js << "]";
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t ues = 10;
    double duration = 10.0;
    double warmup = 1.0;
    uint32_t mss = 1448;
    double radius = 250.0;
    double internetDelayMs = 20.0;
    uint32_t seed = 1;
    uint64_t run = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("ues", "number of UEs (one bulk download each)", ues);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds excluded from goodput, ACK and MCS statistics", warmup);
    cmd.AddValue("mss", "TCP SegmentSize (payload bytes per segment)", mss);
    cmd.AddValue("radius", "outer radius of the UE annulus in metres (inner: 35 m)", radius);
    cmd.AddValue("internetDelay", "one-way delay remote host <-> PGW in ms", internetDelayMs);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.Parse(argc, argv);

    if (ues < 1 || duration <= 0 || warmup < 0 || warmup >= duration || mss < 1 ||
        radius <= kMinRadiusM || internetDelayMs < 0)
    {
        std::cerr << "need ues >= 1, duration > 0, 0 <= warmup < duration, mss >= 1, radius > "
                  << kMinRadiusM << " m, internetDelay >= 0\n";
        return 2;
    }
    uint32_t srsPeriodicity = 0;
    for (uint32_t p : kSrsPeriodicities)
    {
        if (p >= ues)
        {
            srsPeriodicity = p;
            break;
        }
    }
    if (srsPeriodicity == 0)
    {
        std::cerr << "at most 320 UEs in one cell (SRS periodicity)\n";
        return 2;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    // --- TCP: NewReno without SACK ------------------------------------------
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kSocketBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kSocketBuf));

    // --- LTE ------------------------------------------------------------------
    Config::SetDefault("ns3::LteHelper::UseIdealRrc", BooleanValue(true));
    Config::SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping",
                       EnumValue(LteEnbRrc::RLC_AM_ALWAYS));
    Config::SetDefault("ns3::LteEnbRrc::SrsPeriodicity", UintegerValue(srsPeriodicity));
    Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue(kRlcTxBuffer));
    Config::SetDefault("ns3::LteEnbPhy::TxPower", DoubleValue(46.0));
    Config::SetDefault("ns3::LteUePhy::TxPower", DoubleValue(23.0));

    Ptr<LteHelper> lte = CreateObject<LteHelper>();
    Ptr<PointToPointEpcHelper> epc = CreateObject<PointToPointEpcHelper>();
    lte->SetEpcHelper(epc);
    lte->SetSchedulerType("ns3::PfFfMacScheduler");
    lte->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(100));
    lte->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(100));

    // --- remote host behind the PGW ------------------------------------------
    Ptr<Node> pgw = epc->GetPgwNode();
    NodeContainer remoteHostContainer;
    remoteHostContainer.Create(1);
    Ptr<Node> remoteHost = remoteHostContainer.Get(0);
    InternetStackHelper internet;
    internet.Install(remoteHostContainer);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gb/s")));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(internetDelayMs * 1000.0)));
    NetDeviceContainer internetDevs = p2p.Install(pgw, remoteHost);
    Ipv4AddressHelper ipv4h;
    ipv4h.SetBase("1.0.0.0", "255.0.0.0");
    ipv4h.Assign(internetDevs);

    Ipv4StaticRoutingHelper routing;
    Ptr<Ipv4StaticRouting> remoteRouting =
        routing.GetStaticRouting(remoteHost->GetObject<Ipv4>());
    remoteRouting->AddNetworkRouteTo(Ipv4Address("7.0.0.0"), Ipv4Mask("255.0.0.0"), 1);

    // --- radio nodes and positions ---------------------------------------------
    NodeContainer enbNodes;
    enbNodes.Create(1);
    NodeContainer ueNodes;
    ueNodes.Create(ues);

    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    positions->Add(Vector(0.0, 0.0, 0.0)); // the eNB
    Ptr<UniformRandomVariable> uni = CreateObject<UniformRandomVariable>();
    g_ue.assign(ues, UeStats{});
    const double r2min = kMinRadiusM * kMinRadiusM;
    const double r2max = radius * radius;
    for (uint32_t i = 0; i < ues; ++i)
    {
        double r = std::sqrt(r2min + uni->GetValue(0.0, 1.0) * (r2max - r2min));
        double theta = uni->GetValue(0.0, 2.0 * M_PI);
        positions->Add(Vector(r * std::cos(theta), r * std::sin(theta), 0.0));
        g_ue[i].distanceM = r;
    }
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.SetPositionAllocator(positions);
    mobility.Install(enbNodes);
    mobility.Install(ueNodes);

    NetDeviceContainer enbDevs = lte->InstallEnbDevice(enbNodes);
    NetDeviceContainer ueDevs = lte->InstallUeDevice(ueNodes);

    internet.Install(ueNodes);
    Ipv4InterfaceContainer ueIfs = epc->AssignUeIpv4Address(ueDevs);
    for (uint32_t i = 0; i < ues; ++i)
    {
        Ptr<Ipv4StaticRouting> r = routing.GetStaticRouting(ueNodes.Get(i)->GetObject<Ipv4>());
        r->SetDefaultRoute(epc->GetUeDefaultGatewayAddress(), 1);
    }
    lte->Attach(ueDevs, enbDevs.Get(0));

    // --- applications and traces -------------------------------------------
    g_apps.remoteHost = remoteHost;
    g_apps.sendSize = mss;
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < ues; ++i)
    {
        g_apps.ueAddr.push_back(ueIfs.GetAddress(i));
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApp = sinkHelper.Install(ueNodes.Get(i));
        sinkApp.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        Ptr<LteUeRrc> rrc = DynamicCast<LteUeNetDevice>(ueDevs.Get(i))->GetRrc();
        bool ok = rrc->TraceConnectWithoutContext("ConnectionEstablished",
                                                  MakeBoundCallback(&UeConnectionEstablished, i));
        ok = ok && rrc->TraceConnectWithoutContext("DrbCreated",
                                                   MakeBoundCallback(&UeDrbCreated, i));
        ok = ok && ueNodes.Get(i)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
                       "SendOutgoing",
                       MakeBoundCallback(&UeSendOutgoing, i));
        NS_ABORT_MSG_UNLESS(ok, "cannot connect a UE trace source");
    }
    Ptr<LteEnbMac> enbMac = DynamicCast<LteEnbNetDevice>(enbDevs.Get(0))->GetMac();
    NS_ABORT_MSG_UNLESS(
        enbMac->TraceConnectWithoutContext("DlScheduling", MakeCallback(&EnbDlScheduling)),
        "cannot connect the eNB MAC DlScheduling trace");

    Simulator::Schedule(Seconds(warmup), &WarmupSnapshot, &sinks);
    Simulator::Stop(Seconds(duration));

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    uint64_t events = Simulator::GetEventCount();

    // --- results ------------------------------------------------------------
    const double measured = duration - warmup;
    std::vector<double> goodput(ues);
    double total = 0;
    double sumSq = 0;
    uint64_t acksTotal = 0;
    uint64_t acksAfterTotal = 0;
    uint32_t ready = 0;
    for (uint32_t i = 0; i < ues; ++i)
    {
        uint64_t bytes = sinks[i]->GetTotalRx() - g_ue[i].rxAtWarmup;
        goodput[i] = static_cast<double>(bytes) * 8.0 / measured / 1000.0;
        total += goodput[i];
        sumSq += goodput[i] * goodput[i];
        acksTotal += g_ue[i].acks;
        acksAfterTotal += g_ue[i].acks - g_ue[i].acksAtWarmup;
        if (g_ue[i].bearerReadyS >= 0 && g_ue[i].bearerReadyS <= warmup)
        {
            ready++;
        }
    }
    double jain = sumSq > 0 ? total * total / (static_cast<double>(ues) * sumSq) : 0.0;

    std::ostringstream js;
    js << "{\"ues\": " << ues << ", \"duration_s\": " << Num(duration)
       << ", \"warmup_s\": " << Num(warmup) << ", \"mss\": " << mss
       << ", \"radius_m\": " << Num(radius) << ", \"internet_delay_ms\": " << Num(internetDelayMs)
       << ", \"seed\": " << seed << ", \"run\": " << run;
    JsonArray(js, "goodput_kbps", ues, [&](size_t i) { return goodput[i]; });
    js << ", \"goodput_kbps_total\": " << Num(total) << ", \"jain_index\": " << Num(jain);
    JsonArray(js, "ul_acks", ues, [&](size_t i) { return g_ue[i].acks; });
    js << ", \"ul_acks_total\": " << acksTotal;
    JsonArray(js, "ul_acks_after_warmup", ues, [&](size_t i) {
        return g_ue[i].acks - g_ue[i].acksAtWarmup;
    });
    js << ", \"ul_acks_after_warmup_total\": " << acksAfterTotal;
    JsonArray(js, "dl_mcs_mean", ues, [&](size_t i) {
        return g_ue[i].dlDcis ? g_ue[i].mcsSum / g_ue[i].dlDcis : 0.0;
    });
    JsonArray(js, "dl_tbs_mean_bytes", ues, [&](size_t i) {
        return g_ue[i].dlDcis ? g_ue[i].tbsSum / g_ue[i].dlDcis : 0.0;
    });
    JsonArray(js, "dl_dcis", ues, [&](size_t i) { return g_ue[i].dlDcis; });
    JsonArray(js, "distance_m", ues, [&](size_t i) { return g_ue[i].distanceM; });
    JsonArray(js, "bearer_ready_s", ues, [&](size_t i) { return g_ue[i].bearerReadyS; });
    js << ", \"ues_ready_by_warmup\": " << ready << ", \"srs_periodicity_ms\": " << srsPeriodicity
       << ", \"wall_time_s\": " << Num(wall) << ", \"events\": " << events
       << ", \"ns3_version\": \"" << RADIOTCP_NS3_VERSION << "\"}";
    std::cout << js.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
