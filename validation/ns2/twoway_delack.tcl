# Two-way traffic with delayed ACKs: three NewReno flows A_i -> B_i and three
# B_i -> A_i share a 10 Mb/s, 20 ms Tail Drop link in both directions, so the
# ACKs of each direction queue behind the other's data. Sinks are ns-2's
# Agent/TCPSink/DelAck (an ACK for every second segment, or after interval_
# 100 ms). Hosts attach with 100 Mb/s, 2 ms links; every queue has ns-2's
# default limit_ 50. 1000-byte segments, starts uniform in [0, 1] s. The
# R1 -> R2 queue and the A -> B flows are reported.
#
#   ns twoway_delack.tcl SIMTIME WARMUP SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage twoway_delack.tcl {simtime warmup seed}
seed_default $seed

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 1000

set ns [new Simulator]
set startVar [uniform_var [stream $seed 1] 0.0 1.0]

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 20ms DropTail
set qmon [monitor_queue $ns $r1 $r2]

set forward {}
for {set i 0} {$i < 3} {incr i} {
    set a [$ns node]
    set b [$ns node]
    $ns duplex-link $a $r1 100Mb 2ms DropTail
    $ns duplex-link $r2 $b 100Mb 2ms DropTail
    lappend forward [bulk_tcp $ns Newreno $a $b $i [$startVar value] TCPSink/DelAck]
    bulk_tcp $ns Newreno $b $a [expr {10 + $i}] [$startVar value] TCPSink/DelAck
}

measure $ns $qmon $forward 1040 1000 "fwd_" $warmup $simtime
$ns run
