//! Classic pcap output of simulated TCP/IPv4 packets (placeholder; filled in by the pcap work).
