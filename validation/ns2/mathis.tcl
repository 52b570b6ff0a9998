# One TCP Reno bulk flow under random loss, for the Mathis et al. model
# (throughput = MSS / RTT * sqrt(3 / (2 p))): S -> D over a 10 Mb/s link with a
# 50 ms one-way delay whose data direction loses each packet with probability
# P after transmission (ns-2's ErrorModel, as ccsim's link `loss`); 1000-byte
# segments, receiver window 1 MiB, 1000-packet DropTail queues (never full at
# these loss rates). Statistics from WARMUP.
#
#   ns mathis.tcl P SIMTIME WARMUP SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage mathis.tcl {p simtime warmup seed}
seed_default $seed

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ [expr {1048576 / 1000}]
Queue set limit_ 1000

set ns [new Simulator]
set s [$ns node]
set d [$ns node]
$ns duplex-link $s $d 10Mb 50ms DropTail
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
$em ranvar [uniform_var [stream $seed 1] 0.0 1.0]
$em drop-target [new Agent/Null]
$ns lossmodel $em $s $d
set conn [bulk_tcp $ns Reno $s $d 0 0.0]

proc take_before {} {
    global before conn
    set before [list [tcp_counters {*}$conn 1040]]
}
if {$warmup > 0} { $ns at $warmup "take_before" } else { take_before }
proc finish {} {
    global before simtime warmup conn
    puts "duration_s=$simtime"
    print_tcp "" $before [list [tcp_counters {*}$conn 1040]] 1000 [expr {$simtime - $warmup}]
    exit 0
}
$ns at $simtime "finish"
$ns run
