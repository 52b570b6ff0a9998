# XCP on a dumbbell (scripts/validate_xcp.py): N flows of ns-2.35's own XCP
# (Agent/TCP/Reno/XCP into Agent/TCPSink/XCPSink) through a Queue/XCP bottleneck
# R1->R2, flow i starting at i*GAP seconds, as tcl/ex/xcp/xcp_test.tcl sets
# XCP up (set-link-capacity; the queue limit on the bottleneck). Prints the
# bottleneck's counters from the last start + 1 s to the end (keys of
# lib.tcl), and each flow's delivered bytes every 0.1 s as
# "tput FLOW TIME BYTES" lines for the convergence times.

source [file join [file dirname [info script]] lib.tcl]
args_or_usage xcp.tcl {N gap simtime seed bw delay limit}
seed_default $seed

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
Queue set limit_ 10000

set ns [new Simulator]
$ns rtproto Manual

set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 ${bw}Mb ${delay}ms XCP
$ns simplex-link $r2 $r1 ${bw}Mb ${delay}ms DropTail
$ns queue-limit $r1 $r2 $limit
[[$ns link $r1 $r2] queue] set-link-capacity [expr {$bw * 1e6}]
[$r1 get-module Manual] add-route-to-adj-node -default $r2
[$r2 get-module Manual] add-route-to-adj-node -default $r1
set qmon [monitor_queue $ns $r1 $r2]

set conns {}
set sinks {}
for {set i 0} {$i < $N} {incr i} {
    lassign [end_pair $ns $r1 $r2] s d
    set tcp [new Agent/TCP/Reno/XCP]
    $tcp set fid_ $i
    set sink [new Agent/TCPSink/XCPSink]
    $ns attach-agent $s $tcp
    $ns attach-agent $d $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [expr {$i * $gap}] "$ftp start"
    lappend conns [list $tcp $sink]
    lappend sinks $sink
}

proc sample {ns sinks} {
    set now [$ns now]
    set i 0
    foreach s $sinks {
        puts "tput $i $now [$s set bytes_]"
        incr i
    }
    $ns at [expr {$now + 0.1}] [list sample $ns $sinks]
}
$ns at 0.1 [list sample $ns $sinks]

measure $ns $qmon $conns 1040 1000 "" [expr {($N - 1) * $gap + 1.0}] $simtime
$ns run
