# DUMBBELL-N for the cross-validation (benchmarks/README.md describes the
# scenario): N TCP NewReno bulk flows S_i -> D_i across R1 -> R2,
#
#   S_i --1Gb/s,1ms-- R1 ==100Mb/s,20ms, RED== R2 --1Gb/s,1ms-- D_i
#
# RED on R1->R2 as the scenario states it (packet mode, min_th 30, max_th 90,
# max_p 0.1, w_q 0.002, limit 200, not gentle, wait on, mean packet 1040
# bytes, drops); DropTail of 10000 packets elsewhere; 1000-byte segments,
# receiver window never limiting, initial window 1, starts uniform in [0, 1] s.
# Unlike benchmarks/ns2/dumbbell.tcl (the speed benchmark) every other agent
# setting is ns-2.35's default (tcpTick_ 10 ms among them).
#
#   ns dumbbell.tcl N SIMTIME SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage dumbbell.tcl {N simtime seed}
seed_default $seed

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
Agent/TCP set windowInit_ 1
Queue set limit_ 10000
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 30
Queue/RED set maxthresh_ 90
Queue/RED set linterm_ 10
Queue/RED set q_weight_ 0.002
Queue/RED set gentle_ false
Queue/RED set wait_ true
Queue/RED set mean_pktsize_ 1040

set ns [new Simulator]
$ns rtproto Manual
set startVar [uniform_var [stream $seed 1] 0.0 1.0]

set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 100Mb 20ms RED
$ns simplex-link $r2 $r1 100Mb 20ms DropTail
$ns queue-limit $r1 $r2 200
[$r1 get-module Manual] add-route-to-adj-node -default $r2
[$r2 get-module Manual] add-route-to-adj-node -default $r1
set qmon [monitor_queue $ns $r1 $r2]

set conns {}
for {set i 0} {$i < $N} {incr i} {
    lassign [end_pair $ns $r1 $r2] s d
    lappend conns [bulk_tcp $ns Newreno $s $d $i [$startVar value]]
}

measure $ns $qmon $conns 1040 1000 "" 0 $simtime
$ns run
