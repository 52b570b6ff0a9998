# RTRED paper's network (SCENARIOS.md P2) with RED or Adaptive RED at the
# bottleneck, as scenarios/rtred_s*.toml and the reproduction run it: six TCP
# Reno sources S1..S6, each on a 10 Mb/s duplex link to the gateway G with a
# delay drawn uniformly in [1, 5] ms; G -> K 0.7 Mb/s, 20 ms. 552-byte segments
# (592 on the wire), receiver window 20 segments (ns-2's default window_),
# starts uniform in [0, 7] s. The G -> K queue: packet mode, w_q 0.002, the
# scenario's thresholds, max_p and buffer, mean packet 592 bytes; gentle_ and
# wait_ keep ns-2's defaults (both on). ARED is ns-2's adaptive_ 1 (Floyd,
# Gummadi and Shenker) with its default alpha_, beta_, interval_, top_ and
# bottom_. Other queues: 1000-packet DropTail.
#
#   ns rtred.tcl S1|S2|S3 red|ared SIMTIME SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage rtred.tcl {scen strategy simtime seed}
seed_default $seed

# Table I: min_th max_th max_p (risk_th) buffer
array set table {S1 {12 25 0.05 30} S2 {60 90 0.1 100} S3 {15 30 0.08 50}}
if {![info exists table($scen)] || [lsearch {red ared} $strategy] < 0} {
    puts stderr "unknown scenario $scen or strategy $strategy"
    exit 2
}
foreach {min_th max_th max_p buffer} $table($scen) {}

Agent/TCP set packetSize_ 552
Queue set limit_ 1000
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ $min_th
Queue/RED set maxthresh_ $max_th
Queue/RED set linterm_ [expr {1.0 / $max_p}]
Queue/RED set q_weight_ 0.002
Queue/RED set mean_pktsize_ 592
if {$strategy == "ared"} { Queue/RED set adaptive_ 1 }

set ns [new Simulator]
set startVar [uniform_var [stream $seed 1] 0.0 7.0]
set delayVar [uniform_var [stream $seed 2] 0.001 0.005]

set g [$ns node]
set k [$ns node]
$ns simplex-link $g $k 0.7Mb 20ms RED
$ns simplex-link $k $g 0.7Mb 20ms DropTail
$ns queue-limit $g $k $buffer
set qmon [monitor_queue $ns $g $k]

set conns {}
for {set i 0} {$i < 6} {incr i} {
    set s [$ns node]
    $ns duplex-link $s $g 10Mb [$delayVar value] DropTail
    lappend conns [bulk_tcp $ns Reno $s $k $i [$startVar value]]
}

measure $ns $qmon $conns 592 552 "" 0 $simtime
$ns run
