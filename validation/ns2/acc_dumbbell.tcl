# The ACC paper's dumbbell (SCENARIOS.md P4, scenarios/acc_dumbbell.toml)
# without ACC: bulk TCP Reno senders B1, B2 and on/off UDP senders X1..X10
# attach to R1; R1 -> R2 1.5 Mb/s with delay D ms; receivers C1, C2, Y1..Y10
# behind R2; endpoint links 10 Mb/s, 10 ms. The R1 -> R2 queue holds 50
# packets: droptail, red (min_th 5, max_th 15, max_p 0.1, w_q 0.002, packet
# mode; gentle_, wait_ and mean_pktsize_ keep ns-2's defaults) or red+ecn (the
# same RED marking ECN-capable packets, ECN-capable Reno). 1000-byte
# segments, receiver window 1 MiB, bulk starts uniform in [0, 1] s. Cross
# traffic: 100 kb/s while on, exponential on and off periods of mean 2.5 s,
# 1028-byte packets (a 1000-byte UDP payload with its 28 header bytes, as
# ccsim sends it; ns-2's UDP agent adds no header). Other queues: 100-packet
# DropTail.
#
#   ns acc_dumbbell.tcl D_MS droptail|red|red+ecn SIMTIME SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage acc_dumbbell.tcl {d_ms mode simtime seed}
seed_default $seed
if {[lsearch {droptail red red+ecn} $mode] < 0} {
    puts stderr "unknown mode $mode"
    exit 2
}

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ [expr {1048576 / 1000}]
Queue set limit_ 100
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set linterm_ 10
Queue/RED set q_weight_ 0.002
if {$mode == "red+ecn"} {
    Queue/RED set setbit_ true
    Agent/TCP set ecn_ 1
}

set ns [new Simulator]
set startVar [uniform_var [stream $seed 1] 0.0 1.0]

set r1 [$ns node]
set r2 [$ns node]
set qtype [expr {$mode == "droptail" ? "DropTail" : "RED"}]
$ns simplex-link $r1 $r2 1.5Mb ${d_ms}ms $qtype
$ns simplex-link $r2 $r1 1.5Mb ${d_ms}ms DropTail
$ns queue-limit $r1 $r2 50
set qmon [monitor_queue $ns $r1 $r2]

set conns {}
for {set i 0} {$i < 2} {incr i} {
    set b [$ns node]
    set c [$ns node]
    $ns duplex-link $b $r1 10Mb 10ms DropTail
    $ns duplex-link $r2 $c 10Mb 10ms DropTail
    lappend conns [bulk_tcp $ns Reno $b $c $i [$startVar value]]
}
for {set i 0} {$i < 10} {incr i} {
    set x [$ns node]
    set y [$ns node]
    $ns duplex-link $x $r1 10Mb 10ms DropTail
    $ns duplex-link $r2 $y 10Mb 10ms DropTail
    set udp [new Agent/UDP]
    $udp set fid_ [expr {100 + $i}]
    $udp set packetSize_ 1028 ;# else the agent splits each message at 1000 bytes
    $ns attach-agent $x $udp
    set null [new Agent/Null]
    $ns attach-agent $y $null
    $ns connect $udp $null
    set onoff [new Application/Traffic/Exponential]
    $onoff set packetSize_ 1028
    $onoff set burst_time_ 2.5
    $onoff set idle_time_ 2.5
    $onoff set rate_ 100k
    $onoff use-rng [stream $seed [expr {10 + $i}]]
    $onoff attach-agent $udp
    $ns at 0.0 "$onoff start"
}

measure $ns $qmon $conns 1040 1000 "bulk_" 0 $simtime
$ns run
