# A parking lot of three RED hops with ns-2.35's RED exactly as it comes:
# automatic thresholds and weight (thresh_ 0, maxthresh_ 0, q_weight_ -1), byte
# mode (bytes_ and queue_in_bytes_ true), gentle_, wait_, mean_pktsize_ 500.
#
#   S -- R0 ==10Mb/s,10ms== R1 ==10Mb/s,10ms== R2 ==10Mb/s,10ms== R3 -- D
#         |  X0a,X0b -> Y0a,Y0b   |  X1a,X1b -> Y1a,Y1b  |  X2a,X2b -> Y2a,Y2b
#
# One NewReno flow S -> D crosses the three hops; on each hop two NewReno
# flows enter at its first router and leave at its second. Hosts attach with
# 100 Mb/s, 2 ms links. Every queue has ns-2's default limit_ 50 (RED in byte
# mode counts it as 50 x 500 bytes). 1000-byte segments, default TCPSink,
# starts uniform in [0, 1] s. The first hop's queue (R0 -> R1) is reported.
#
#   ns parking_lot.tcl SIMTIME WARMUP SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage parking_lot.tcl {simtime warmup seed}
seed_default $seed

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 1000

set ns [new Simulator]
set startVar [uniform_var [stream $seed 1] 0.0 1.0]

for {set i 0} {$i < 4} {incr i} { set r($i) [$ns node] }
for {set i 0} {$i < 3} {incr i} {
    set j [expr {$i + 1}]
    $ns simplex-link $r($i) $r($j) 10Mb 10ms RED
    $ns simplex-link $r($j) $r($i) 10Mb 10ms DropTail
}
set qmon [monitor_queue $ns $r(0) $r(1)]

proc host {ns router} {
    set h [$ns node]
    $ns duplex-link $h $router 100Mb 2ms DropTail
    return $h
}

set conns {}
set s [host $ns $r(0)]
set d [host $ns $r(3)]
lappend conns [bulk_tcp $ns Newreno $s $d 0 [$startVar value]]
set fid 1
for {set i 0} {$i < 3} {incr i} {
    foreach k {a b} {
        set x [host $ns $r($i)]
        set y [host $ns $r([expr {$i + 1}])]
        lappend conns [bulk_tcp $ns Newreno $x $y $fid [$startVar value]]
        incr fid
    }
}

measure $ns $qmon $conns 1040 1000 "" $warmup $simtime
$ns run
