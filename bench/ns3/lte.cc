// radiotcp side-by-side benchmark: one LTE cell in ns-3 (LENA), bulk TCP
// downloads to N static UEs.
//
//   remote host --[p2p: 10 Gb/s, D ms, MTU 1500]--> PGW/SGW --[S1-U]--> eNB ~~~> UE 1..N
//
// * 1 eNB, 1 cell, 20 MHz (100 PRB) DL and UL, PfFfMacScheduler, ideal RRC,
//   RLC AM (--rlc=am, the default) or UM (--rlc=um) for every bearer with a
//   10 MiB transmit buffer (UM: PDCP discarding off, so that neither mode drops
//   a packet for its age), LENA's default PHY (Friis path loss, no fading)
//   except the transmit powers, set explicitly: eNB 46 dBm, UE 23 dBm.
// * UEs static. Default: uniformly distributed (by area) in the annulus
//   35 m .. radius around the eNB, positions drawn from the run's random
//   stream (--run). --distances=d1,d2,... puts UE i at distance d[i mod n]
//   metres (angles spread evenly): with Friis path loss the distance sets the
//   UE's SINR and so the CQI/MCS LENA uses (every UE within ~10 km is at
//   MCS 28); the MCS and SINR LENA actually used are reported back.
//   --dlSinr=s1,s2,... (dB, used cyclically) sets UE i's DL SINR without
//   touching its uplink: the UE stays where it is (default 1 km with this
//   option) and its noise figure (LteUePhy "NoiseFigure", which only affects
//   the UE's DL reception) is raised from 9 dB by the SINR it has in excess
//   of s[i], from LENA's own link budget: 46 dBm spread over 100 PRB, Friis
//   at the DL carrier (EARFCN 100, 2120 MHz), thermal noise -174 dBm/Hz.
// * --fadingTrace=PATH installs LENA's TraceFadingLossModel with that file
//   (bench/ns3/fading_trace.py writes an EPA 3 km/h one: dB per RB and 1 ms
//   sample, 100 RB, --fadingTraceS seconds) through LteHelper "FadingModel",
//   which adds it to both the DL and the UL spectrum channel. Each eNB-UE
//   pair (and each direction) reads the trace from its own random offset,
//   redrawn every 0.5 s (the model's WindowSize). Without it: no fading.
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
// Counters after the warm-up, per UE:
// * dl_tb_bytes / dl_rlc_bytes: octets of the DL transport blocks scheduled
//   with new data (DlScheduling with RLC PDUs in it) and octets of the RLC PDUs
//   the eNB's RLC handed to the MAC for them (LteRlc "TxPDU" fires inside the
//   same LteEnbMac::DoSchedDlConfigInd call, before DlScheduling); the
//   difference is padding. dl_small_pdu_tbs counts new-data blocks that carried
//   at most 4 RLC octets (RLC AM: a STATUS PDU sent alone,
//   LteRlcAm::DoNotifyTxOpportunity returns after it). HARQ retransmissions
//   (no RLC PDU) count in dl_retx_dcis, not in the byte counters.
// * DL/UL BLER and HARQ: the UE's DL LteSpectrumPhy "DlPhyReception" and the
//   eNB's UL "UlPhyReception" (transport blocks received, failed, ndi == 0).
// * dl_sinr_db_mean: the UE PHY's "ReportCurrentCellRsrpSinr" (wideband SINR,
//   averaged in dB).
// * ul_pdcp_delay_ms_mean: UE PDCP -> eNB PDCP delay of each UL PDCP PDU (the
//   eNB PDCP "RxPDU" trace; in this scenario the uplink carries TCP ACKs).
// * Uplink power control (LteUePowerControl: P = min(Pcmax, 10 log10 M + P0 +
//   alpha PL + f), PL = referenceSignalPower - RSRP, i.e. the DL path loss):
//   ul_mcs_mean / ul_tb_bytes_mean over the UL first transmissions the eNB
//   received (UlPhyReception, ndi == 1); pusch_tx_power_dbm_mean, the UE's
//   "ReportPuschTxPower" per PUSCH; ul_srs_sinr_db_mean, the eNB PHY's
//   "ReportUeSinr" (the SRS SINR the UL scheduler picks the MCS from);
//   dl_path_loss_db / ul_path_loss_db, Friis at the DL (2120 MHz) and UL
//   (1930 MHz) carriers. --ulClosedLoop=0 sets LteUePowerControl::ClosedLoop
//   false (open loop; the PF scheduler's TPC is 0 dB anyway).
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
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
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
constexpr double kEnbTxPowerDbm = 46.0;
constexpr double kUeTxPowerDbm = 23.0;
constexpr double kUeNoiseFigureDb = 9.0; // LteUePhy default
constexpr double kDlCarrierHz = 2120e6;  // EARFCN 100 (LteEnbNetDevice default)
constexpr double kUlCarrierHz = 1930e6;  // UL EARFCN 18100 (band 1: 1920 + 0.1 * 100 MHz)
constexpr double kDefaultSinrDistanceM = 1000.0;
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
    // after the warm-up:
    uint64_t pendingRlc = 0;      // RLC PDU octets handed to the MAC in this TTI so far
    uint64_t tbBytes = 0;         // new-data DL transport blocks, octets
    uint64_t rlcBytes = 0;        // RLC PDU octets in them
    uint64_t newTbs = 0;          // new-data DL transport blocks
    uint64_t smallPduTbs = 0;     // ... carrying at most 4 RLC octets
    uint64_t retxDcis = 0;        // DL DCIs without RLC PDUs (HARQ retransmissions)
    uint64_t dlRx = 0;            // DL transport blocks received (all transmissions)
    uint64_t dlRxFail = 0;        // ... not decoded
    uint64_t dlRxRetx = 0;        // ... with ndi == 0 (HARQ retransmissions)
    uint64_t ulRx = 0;            // the same for the UL, at the eNB
    uint64_t ulRxFail = 0;
    uint64_t ulRxRetx = 0;
    double sinrDbSum = 0;         // wideband DL SINR reports, dB
    uint64_t sinrReports = 0;
    double ulDelaySumMs = 0;      // UL PDCP PDUs' UE -> eNB PDCP delay
    uint64_t ulPdus = 0;
    double ulMcsSum = 0;          // UL first transmissions received: MCS, TB octets
    double ulTbBytesSum = 0;
    uint64_t ulNewRx = 0;
    double puschDbmSum = 0;       // PUSCH transmit powers, dBm
    uint64_t puschTx = 0;
    double srsSinrDbSum = 0;      // SRS SINR reports at the eNB, dB
    uint64_t srsReports = 0;
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
    if (s.pendingRlc == 0)
    {
        s.retxDcis++;
    }
    else
    {
        s.newTbs++;
        s.tbBytes += info.sizeTb1;
        s.rlcBytes += s.pendingRlc;
        if (s.pendingRlc <= 4)
        {
            s.smallPduTbs++;
        }
        s.pendingRlc = 0;
    }
}

// The eNB's RLC of a DRB hands a PDU to the MAC (inside the scheduling call,
// before the DlScheduling trace of the same TTI).
void
EnbRlcTxPdu(uint16_t rnti, uint8_t, uint32_t size)
{
    int32_t i = g_rntiToUe[rnti];
    if (g_warm && i >= 0)
    {
        g_ue[i].pendingRlc += size;
    }
}

// An UL PDCP PDU arrives at the eNB's PDCP; delay since the UE's PDCP sent it.
void
EnbPdcpRxPdu(uint16_t rnti, uint8_t, uint32_t, uint64_t delayNs)
{
    int32_t i = g_rntiToUe[rnti];
    if (g_warm && i >= 0)
    {
        g_ue[i].ulDelaySumMs += static_cast<double>(delayNs) / 1e6;
        g_ue[i].ulPdus++;
    }
}

void
UeDlPhyReception(uint32_t i, PhyReceptionStatParameters p)
{
    if (!g_warm)
    {
        return;
    }
    UeStats& s = g_ue[i];
    s.dlRx++;
    s.dlRxFail += p.m_correctness ? 0 : 1;
    s.dlRxRetx += p.m_ndi ? 0 : 1;
}

void
EnbUlPhyReception(PhyReceptionStatParameters p)
{
    int32_t i = g_rntiToUe[p.m_rnti];
    if (!g_warm || i < 0)
    {
        return;
    }
    UeStats& s = g_ue[i];
    s.ulRx++;
    s.ulRxFail += p.m_correctness ? 0 : 1;
    s.ulRxRetx += p.m_ndi ? 0 : 1;
    if (p.m_ndi)
    {
        s.ulNewRx++;
        s.ulMcsSum += p.m_mcs;
        s.ulTbBytesSum += p.m_size;
    }
}

void
UePuschTxPower(uint32_t i, uint16_t, uint16_t, double dbm)
{
    if (g_warm)
    {
        g_ue[i].puschDbmSum += dbm;
        g_ue[i].puschTx++;
    }
}

void
EnbUeSinr(uint16_t, uint16_t rnti, double sinrLinear, uint8_t)
{
    int32_t i = g_rntiToUe[rnti];
    if (g_warm && i >= 0 && sinrLinear > 0)
    {
        g_ue[i].srsSinrDbSum += 10.0 * std::log10(sinrLinear);
        g_ue[i].srsReports++;
    }
}

double
FriisDb(double distanceM, double carrierHz)
{
    return 20.0 * std::log10(4.0 * M_PI * distanceM * carrierHz / 299792458.0);
}

void
UeRsrpSinr(uint32_t i, uint16_t, uint16_t, double, double sinr, uint8_t)
{
    if (g_warm && sinr > 0)
    {
        g_ue[i].sinrDbSum += 10.0 * std::log10(sinr);
        g_ue[i].sinrReports++;
    }
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
    // The DRBs exist by now (ues_ready_by_warmup tells): their RLC and PDCP
    // objects can be connected to.
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LteRlc/TxPDU",
        MakeCallback(&EnbRlcTxPdu));
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/DeviceList/*/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LtePdcp/RxPDU",
        MakeCallback(&EnbPdcpRxPdu));
}

// "d1,d2,..." -> distances in metres (empty string: none).
std::vector<double>
ParseList(const std::string& text)
{
    std::vector<double> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(std::stod(item));
        }
    }
    return out;
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
    std::string rlc = "am";
    std::string distances;
    std::string dlSinr;
    std::string fadingTrace;
    double fadingTraceS = 10.0;
    bool ulClosedLoop = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("ues", "number of UEs (one bulk download each)", ues);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds excluded from goodput, ACK and MCS statistics", warmup);
    cmd.AddValue("mss", "TCP SegmentSize (payload bytes per segment)", mss);
    cmd.AddValue("radius", "outer radius of the UE annulus in metres (inner: 35 m)", radius);
    cmd.AddValue("internetDelay", "one-way delay remote host <-> PGW in ms", internetDelayMs);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("rlc", "RLC mode of every bearer: am or um", rlc);
    cmd.AddValue("distances",
                 "comma-separated UE distances in metres, used cyclically (default: the "
                 "random annulus)",
                 distances);
    cmd.AddValue("dlSinr",
                 "comma-separated per-UE DL SINRs in dB, used cyclically, set through the UE "
                 "noise figure (UEs at 1 km unless --distances is given)",
                 dlSinr);
    cmd.AddValue("fadingTrace",
                 "TraceFadingLossModel trace file (dB, 100 RB x 1 ms samples) for DL and UL; "
                 "empty: no fading",
                 fadingTrace);
    cmd.AddValue("fadingTraceS", "length of the fading trace in seconds (1000 samples/s)",
                 fadingTraceS);
    cmd.AddValue("ulClosedLoop",
                 "LteUePowerControl::ClosedLoop (LENA default true; false: open loop)",
                 ulClosedLoop);
    cmd.Parse(argc, argv);

    if (rlc != "am" && rlc != "um")
    {
        std::cerr << "--rlc must be am or um\n";
        return 2;
    }
    std::vector<double> distanceList;
    std::vector<double> sinrList;
    try
    {
        distanceList = ParseList(distances);
        sinrList = ParseList(dlSinr);
    }
    catch (const std::exception&)
    {
        std::cerr << "--distances / --dlSinr: not a list of numbers\n";
        return 2;
    }
    if (!sinrList.empty() && distanceList.empty())
    {
        distanceList.push_back(kDefaultSinrDistanceM);
    }
    for (double d : distanceList)
    {
        if (!(d > 0))
        {
            std::cerr << "--distances: every distance must be > 0 m\n";
            return 2;
        }
    }

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
    Config::SetDefault(
        "ns3::LteEnbRrc::EpsBearerToRlcMapping",
        EnumValue(rlc == "um" ? LteEnbRrc::RLC_UM_ALWAYS : LteEnbRrc::RLC_AM_ALWAYS));
    Config::SetDefault("ns3::LteRlcUm::MaxTxBufferSize", UintegerValue(kRlcTxBuffer));
    Config::SetDefault("ns3::LteRlcUm::EnablePdcpDiscarding", BooleanValue(false));
    Config::SetDefault("ns3::LteEnbRrc::SrsPeriodicity", UintegerValue(srsPeriodicity));
    Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue(kRlcTxBuffer));
    Config::SetDefault("ns3::LteEnbPhy::TxPower", DoubleValue(kEnbTxPowerDbm));
    Config::SetDefault("ns3::LteUePhy::TxPower", DoubleValue(kUeTxPowerDbm));
    Config::SetDefault("ns3::LteUePhy::NoiseFigure", DoubleValue(kUeNoiseFigureDb));
    Config::SetDefault("ns3::LteUePowerControl::ClosedLoop", BooleanValue(ulClosedLoop));

    Ptr<LteHelper> lte = CreateObject<LteHelper>();
    Ptr<PointToPointEpcHelper> epc = CreateObject<PointToPointEpcHelper>();
    lte->SetEpcHelper(epc);
    lte->SetSchedulerType("ns3::PfFfMacScheduler");
    if (!fadingTrace.empty())
    {
        if (!(fadingTraceS >= 1.0))
        {
            std::cerr << "--fadingTraceS must be >= 1 s (the window is 0.5 s)\n";
            return 2;
        }
        if (!std::ifstream(fadingTrace).good())
        {
            std::cerr << "--fadingTrace: cannot read " << fadingTrace << "\n";
            return 2;
        }
        lte->SetFadingModel("ns3::TraceFadingLossModel");
        lte->SetFadingModelAttribute("TraceFilename", StringValue(fadingTrace));
        lte->SetFadingModelAttribute("TraceLength", TimeValue(Seconds(fadingTraceS)));
        lte->SetFadingModelAttribute(
            "SamplesNum",
            UintegerValue(static_cast<uint32_t>(std::lround(fadingTraceS * 1000.0))));
        lte->SetFadingModelAttribute("WindowSize", TimeValue(Seconds(0.5)));
        lte->SetFadingModelAttribute("RbNum", UintegerValue(100));
    }
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
        if (!distanceList.empty())
        {
            r = distanceList[i % distanceList.size()];
            theta = 2.0 * M_PI * i / ues;
        }
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
    std::vector<double> noiseFigure(ues, kUeNoiseFigureDb);
    if (!sinrList.empty())
    {
        // LENA's DL SINR per PRB without interference: the eNB power spread
        // evenly over the 100 PRB, Friis path loss, noise kT * 180 kHz * NF.
        const double lambda = 299792458.0 / kDlCarrierHz;
        for (uint32_t i = 0; i < ues; ++i)
        {
            double pathLossDb = 20.0 * std::log10(4.0 * M_PI * g_ue[i].distanceM / lambda);
            double rxPerPrbDbm = kEnbTxPowerDbm - 10.0 * std::log10(100.0) - pathLossDb;
            double noisePerPrbDbm = -174.0 + 10.0 * std::log10(180e3) + kUeNoiseFigureDb;
            double sinr = rxPerPrbDbm - noisePerPrbDbm;
            double target = sinrList[i % sinrList.size()];
            if (target > sinr)
            {
                std::cerr << "--dlSinr: UE " << i << " cannot reach " << target << " dB at "
                          << g_ue[i].distanceM << " m (at most " << sinr << " dB)\n";
                return 2;
            }
            noiseFigure[i] = kUeNoiseFigureDb + sinr - target;
            DynamicCast<LteUeNetDevice>(ueDevs.Get(i))
                ->GetPhy()
                ->SetAttribute("NoiseFigure", DoubleValue(noiseFigure[i]));
        }
    }

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
        Ptr<LteUePhy> uePhy = DynamicCast<LteUeNetDevice>(ueDevs.Get(i))->GetPhy();
        ok = ok && uePhy->GetDownlinkSpectrumPhy()->TraceConnectWithoutContext(
                       "DlPhyReception",
                       MakeBoundCallback(&UeDlPhyReception, i));
        ok = ok && uePhy->TraceConnectWithoutContext("ReportCurrentCellRsrpSinr",
                                                     MakeBoundCallback(&UeRsrpSinr, i));
        ok = ok && uePhy->GetUplinkPowerControl()->TraceConnectWithoutContext(
                       "ReportPuschTxPower",
                       MakeBoundCallback(&UePuschTxPower, i));
        NS_ABORT_MSG_UNLESS(ok, "cannot connect a UE trace source");
    }
    Ptr<LteEnbMac> enbMac = DynamicCast<LteEnbNetDevice>(enbDevs.Get(0))->GetMac();
    NS_ABORT_MSG_UNLESS(
        enbMac->TraceConnectWithoutContext("DlScheduling", MakeCallback(&EnbDlScheduling)),
        "cannot connect the eNB MAC DlScheduling trace");
    Ptr<LteEnbPhy> enbPhy = DynamicCast<LteEnbNetDevice>(enbDevs.Get(0))->GetPhy();
    NS_ABORT_MSG_UNLESS(enbPhy->GetUplinkSpectrumPhy()->TraceConnectWithoutContext(
                            "UlPhyReception",
                            MakeCallback(&EnbUlPhyReception)),
                        "cannot connect the eNB UlPhyReception trace");
    NS_ABORT_MSG_UNLESS(enbPhy->TraceConnectWithoutContext("ReportUeSinr", MakeCallback(&EnbUeSinr)),
                        "cannot connect the eNB ReportUeSinr trace");

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
       << ", \"seed\": " << seed << ", \"run\": " << run << ", \"rlc\": \"" << rlc << "\""
       << ", \"fading_trace\": \"" << fadingTrace << "\""
       << ", \"ul_closed_loop\": " << (ulClosedLoop ? "true" : "false");
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
    JsonArray(js, "dl_sinr_db_mean", ues, [&](size_t i) {
        return g_ue[i].sinrReports ? g_ue[i].sinrDbSum / g_ue[i].sinrReports : 0.0;
    });
    JsonArray(js, "dl_tb_bytes", ues, [&](size_t i) { return g_ue[i].tbBytes; });
    JsonArray(js, "dl_rlc_bytes", ues, [&](size_t i) { return g_ue[i].rlcBytes; });
    JsonArray(js, "dl_new_tbs", ues, [&](size_t i) { return g_ue[i].newTbs; });
    JsonArray(js, "dl_small_pdu_tbs", ues, [&](size_t i) { return g_ue[i].smallPduTbs; });
    JsonArray(js, "dl_retx_dcis", ues, [&](size_t i) { return g_ue[i].retxDcis; });
    JsonArray(js, "dl_rx_tbs", ues, [&](size_t i) { return g_ue[i].dlRx; });
    JsonArray(js, "dl_rx_failed", ues, [&](size_t i) { return g_ue[i].dlRxFail; });
    JsonArray(js, "dl_harq_retx", ues, [&](size_t i) { return g_ue[i].dlRxRetx; });
    JsonArray(js, "ul_rx_tbs", ues, [&](size_t i) { return g_ue[i].ulRx; });
    JsonArray(js, "ul_rx_failed", ues, [&](size_t i) { return g_ue[i].ulRxFail; });
    JsonArray(js, "ul_harq_retx", ues, [&](size_t i) { return g_ue[i].ulRxRetx; });
    JsonArray(js, "ul_pdcp_delay_ms_mean", ues, [&](size_t i) {
        return g_ue[i].ulPdus ? g_ue[i].ulDelaySumMs / g_ue[i].ulPdus : 0.0;
    });
    JsonArray(js, "ul_mcs_mean", ues, [&](size_t i) {
        return g_ue[i].ulNewRx ? g_ue[i].ulMcsSum / g_ue[i].ulNewRx : 0.0;
    });
    JsonArray(js, "ul_tb_bytes_mean", ues, [&](size_t i) {
        return g_ue[i].ulNewRx ? g_ue[i].ulTbBytesSum / g_ue[i].ulNewRx : 0.0;
    });
    JsonArray(js, "pusch_tx_power_dbm_mean", ues, [&](size_t i) {
        return g_ue[i].puschTx ? g_ue[i].puschDbmSum / g_ue[i].puschTx : 0.0;
    });
    JsonArray(js, "pusch_tx", ues, [&](size_t i) { return g_ue[i].puschTx; });
    JsonArray(js, "ul_srs_sinr_db_mean", ues, [&](size_t i) {
        return g_ue[i].srsReports ? g_ue[i].srsSinrDbSum / g_ue[i].srsReports : 0.0;
    });
    JsonArray(js, "dl_path_loss_db", ues, [&](size_t i) {
        return FriisDb(g_ue[i].distanceM, kDlCarrierHz);
    });
    JsonArray(js, "ul_path_loss_db", ues, [&](size_t i) {
        return FriisDb(g_ue[i].distanceM, kUlCarrierHz);
    });
    JsonArray(js, "ue_noise_figure_db", ues, [&](size_t i) { return noiseFigure[i]; });
    JsonArray(js, "distance_m", ues, [&](size_t i) { return g_ue[i].distanceM; });
    JsonArray(js, "bearer_ready_s", ues, [&](size_t i) { return g_ue[i].bearerReadyS; });
    js << ", \"ues_ready_by_warmup\": " << ready << ", \"srs_periodicity_ms\": " << srsPeriodicity
       << ", \"wall_time_s\": " << Num(wall) << ", \"events\": " << events
       << ", \"ns3_version\": \"" << RADIOTCP_NS3_VERSION << "\"}";
    std::cout << js.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
