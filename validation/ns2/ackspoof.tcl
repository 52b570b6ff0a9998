# The ACK-spoofing paper's networks (SCENARIOS.md P1, scenarios/ackspoof_net*.toml)
# with Tail Drop, RED (max_p 0.02) or RED/ECN (max_p 0.10): no spoofing, which
# ns-2 does not have. Every link 100 Mb/s; TCP Reno, 1000-byte segments,
# receiver window 1 MiB; each packet a sender emits waits U(0, 0.1 ms) first
# (ccsim's `jitter`; ns-2's closest is overhead_, a random wait of the same
# size before each send, with the difference explained in docs/validation.md).
# The bottleneck holds BUFFER packets; RED: packet mode, w_q 0.002, Table 1's
# thresholds for the buffer; gentle_, wait_, mean_pktsize_ ns-2's defaults.
#
# net1 (Fig. 3): H0, H1 on R0; H2, H3 on R1; R0, R1 -> R2 -> R3 -> H4, H5;
# delays H0-R0 2 ms, H1-R0 4, H2-R1 6, H3-R1 8, R0-R2 5, R1-R2 5, R2-R3 10,
# R3-H4 2, R3-H5 3. Bottleneck R2 -> R3. 40 flows: 10 each H0->H5, H1->H4,
# H2->H4, H3->H5, starting uniformly in [0, 1] s; statistics from 5 s.
# net2 (Fig. 7): H0, H1 on R0; R0 -> R1 (10 ms, the bottleneck); R1 to H2, H3;
# access links 5 ms. Group 1: 10 flows H0->H2 from 0 s; group 2: 10 flows
# H1->H3 from 2 s; statistics from 0 s.
# Reverse queue of the bottleneck: 120-packet DropTail; others 100 packets.
#
#   ns ackspoof.tcl net1|net2 droptail|red|red+ecn BUFFER JITTER(0|1) SIMTIME WARMUP SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage ackspoof.tcl {net aqm buffer jitter simtime warmup seed}
seed_default $seed

# Table 1: buffer -> min_th max_th
array set table {40 {5 30} 60 {10 50} 90 {10 72} 120 {10 90} 160 {10 120} 200 {10 150}}
array set maxp {red 0.02 red+ecn 0.10}
if {[lsearch {droptail red red+ecn} $aqm] < 0 || [lsearch {net1 net2} $net] < 0} {
    puts stderr "unknown network $net or AQM $aqm"
    exit 2
}

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ [expr {1048576 / 1000}]
if {$jitter} { Agent/TCP set overhead_ 0.0001 }
Queue set limit_ 100
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set q_weight_ 0.002
if {$aqm != "droptail"} {
    foreach {min_th max_th} $table($buffer) {}
    Queue/RED set thresh_ $min_th
    Queue/RED set maxthresh_ $max_th
    Queue/RED set linterm_ [expr {1.0 / $maxp($aqm)}]
}
if {$aqm == "red+ecn"} {
    Queue/RED set setbit_ true
    Agent/TCP set ecn_ 1
}
set qtype [expr {$aqm == "droptail" ? "DropTail" : "RED"}]

set ns [new Simulator]
set startVar [uniform_var [stream $seed 1] 0.0 1.0]
proc link {a b delay} {
    global ns node
    $ns duplex-link $node($a) $node($b) 100Mb ${delay}ms DropTail
}
proc bottleneck {a b delay} {
    global ns node qtype buffer
    $ns simplex-link $node($a) $node($b) 100Mb ${delay}ms $qtype
    $ns simplex-link $node($b) $node($a) 100Mb ${delay}ms DropTail
    $ns queue-limit $node($a) $node($b) $buffer
    $ns queue-limit $node($b) $node($a) 120
}

set groups {}
if {$net == "net1"} {
    foreach n {H0 H1 H2 H3 H4 H5 R0 R1 R2 R3} { set node($n) [$ns node] }
    bottleneck R2 R3 10
    foreach {a b d} {H0 R0 2 H1 R0 4 H2 R1 6 H3 R1 8 R0 R2 5 R1 R2 5 R3 H4 2 R3 H5 3} { link $a $b $d }
    set spec {g1 H0 H5 {} g2 H1 H4 {} g3 H2 H4 {} g4 H3 H5 {}}
    set qmon [monitor_queue $ns $node(R2) $node(R3)]
} else {
    foreach n {H0 H1 H2 H3 R0 R1} { set node($n) [$ns node] }
    bottleneck R0 R1 10
    foreach {a b d} {H0 R0 5 H1 R0 5 R1 H2 5 R1 H3 5} { link $a $b $d }
    set spec {g1 H0 H2 0.0 g2 H1 H3 2.0}
    set qmon [monitor_queue $ns $node(R0) $node(R1)]
}
set fid 0
foreach {g from to start} $spec {
    set conns($g) {}
    for {set i 0} {$i < 10} {incr i} {
        set t [expr {$start == "" ? [$startVar value] : $start}]
        lappend conns($g) [bulk_tcp $ns Reno $node($from) $node($to) [incr fid] $t]
    }
    lappend groups $g
}

set all {}
foreach g $groups { lappend all {*}$conns($g) }
measure $ns $qmon $all 1040 1000 "" $warmup $simtime
$ns run
