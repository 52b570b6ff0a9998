# DUMBBELL-N for ns-2 (tested with ns-2.35 as packaged by Debian).
#
#   ns dumbbell.tcl N SIMTIME SEED [BOTTLENECK_MBPS]
#
# N TCP NewReno bulk (FTP) flows, each from its own sender host S_i to its
# own receiver host D_i, across routers R1 -> R2:
#
#   S_i --1Gb/s,1ms-- R1 ==100Mb/s,20ms, RED== R2 --1Gb/s,1ms-- D_i
#
# RED on R1->R2 (packet mode, min_th 30, max_th 90, 1/max_p 10,
# w_q 0.002, limit 200, not gentle, no ECN); every other queue is a
# 10000-packet DropTail.  BOTTLENECK_MBPS (default 100, a multiple of 100)
# makes R1->R2 k = BOTTLENECK_MBPS/100 times faster with a buffer to match:
# limit and thresholds times k, w_q divided by k.  1000-byte segments (1040 bytes on the wire),
# no delayed ACKs, initial window 1, start times uniform in [0,1] s.
#
# At the end it prints one key=value per line (see benchmarks/README.md):
#   simulator=ns2
#   n_flows=N
#   sim_time_s=...
#   delivered_packets=...   in-order data packets delivered to the sinks
#   acked_packets=...       data packets cumulatively ACKed at the senders
#   goodput_bps=...         in-order payload bits delivered / sim time
#   bottleneck_drops=...    all drops (early+forced+overflow) at R1->R2
#   bottleneck_early_drops=...   RED early (probabilistic) drops
#   bottleneck_forced_drops=...  drops above max_th or at the limit
#   mean_queue_packets=...  time-weighted mean length of the R1->R2 queue
#                           (a queue monitor's packet integrator; the packet
#                           being transmitted is not in the queue)

if {$argc != 3 && $argc != 4} {
    puts stderr "usage: ns dumbbell.tcl N SIMTIME SEED \[BOTTLENECK_MBPS\]"
    exit 2
}
set N       [lindex $argv 0]
set simtime [lindex $argv 1]
set seed    [lindex $argv 2]
set mbps    100
if {$argc == 4} { set mbps [lindex $argv 3] }
if {$mbps < 100 || $mbps % 100 != 0} {
    puts stderr "BOTTLENECK_MBPS must be a multiple of 100"
    exit 2
}
set k [expr {$mbps / 100}]
if {$seed < 1} {
    # ns-2 treats seed 0 as "pick one from the clock"
    puts stderr "SEED must be >= 1"
    exit 2
}

set payload 1000   ;# TCP payload bytes per segment
set hdr     40     ;# ns-2 adds a 40-byte TCP/IP header

# ---- defaults ---------------------------------------------------------------
Agent/TCP set packetSize_  $payload
Agent/TCP set window_      10000     ;# receiver window never limits
Agent/TCP set windowInit_  1
Agent/TCP set maxcwnd_     0
Agent/TCP set ssthresh_    0         ;# 0 = unlimited initial ssthresh
Agent/TCP set timestamps_  false
Agent/TCP set tcpTick_     0.001     ;# 1 ms clock, as ns-3's ClockGranularity
Agent/TCP set minrto_      0.2

Queue set limit_ 10000               ;# DropTail everywhere else: never drops

Queue/RED set bytes_           false
Queue/RED set queue_in_bytes_  false
Queue/RED set thresh_          [expr {30 * $k}]
Queue/RED set maxthresh_       [expr {90 * $k}]
Queue/RED set linterm_         10    ;# max_p = 1/10
Queue/RED set q_weight_        [expr {0.002 / $k}]
Queue/RED set gentle_          false
Queue/RED set setbit_          false ;# drop, do not mark
Queue/RED set mean_pktsize_    [expr {$payload + $hdr}]
Queue/RED set wait_            true
Queue/RED set adaptive_        0

set ns [new Simulator]
# Static routes set by hand below.  ns-2's default (global all-pairs)
# route computation is cubic in the node count and takes about a minute
# at N=1000 before the first event, while the routes here are trivial.
$ns rtproto Manual

# Seeds: the default RNG drives RED's drop decisions; a separate stream
# draws the start times.
global defaultRNG
$defaultRNG seed $seed
set startRng [new RNG]
$startRng seed [expr {$seed + 1000}]
set startVar [new RandomVariable/Uniform]
$startVar use-rng $startRng
$startVar set min_ 0.0
$startVar set max_ 1.0

# ---- topology -----------------------------------------------------------------
set r1 [$ns node]
set r2 [$ns node]

$ns simplex-link $r1 $r2 ${mbps}Mb 20ms RED
$ns simplex-link $r2 $r1 ${mbps}Mb 20ms DropTail
$ns queue-limit $r1 $r2 [expr {200 * $k}]
[$r1 get-module Manual] add-route-to-adj-node -default $r2
[$r2 get-module Manual] add-route-to-adj-node -default $r1

# Queue monitor on R1->R2 counting every drop; RED early drops are routed
# through a second snoop so they can be told apart from forced ones.
set bl [$ns link $r1 $r2]
set redq [$bl queue]
set qmon [new QueueMonitor/ED]
$bl attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] \
    [new SnoopQueue/Drop] $qmon
set edsnoop [new SnoopQueue/EDrop]
$edsnoop set-monitor $qmon
$redq early-drop-target $edsnoop
$edsnoop target [$ns set nullAgent_]
# The monitor's packet count over time, for the mean queue length.
set pint [new Integrator]
$qmon set-pkts-integrator $pint

set tcps  {}
set sinks {}
for {set i 0} {$i < $N} {incr i} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s  $r1 1Gb 1ms DropTail
    $ns duplex-link $r2 $d  1Gb 1ms DropTail
    [$s  get-module Manual] add-route-to-adj-node -default $r1
    [$d  get-module Manual] add-route-to-adj-node -default $r2
    [$r1 get-module Manual] add-route-to-adj-node $s
    [$r2 get-module Manual] add-route-to-adj-node $d

    set tcp [new Agent/TCP/Newreno]
    $tcp set fid_ $i
    set sink [new Agent/TCPSink]
    $ns attach-agent $s $tcp
    $ns attach-agent $d $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [$startVar value] "$ftp start"
    lappend tcps $tcp
    lappend sinks $sink
}

# ---- results --------------------------------------------------------------------
proc finish {} {
    global ns tcps sinks qmon pint simtime N payload hdr mbps
    # TCPSink's bytes_ counts the in-order bytes handed up, using each
    # packet's full size: 1040 per data segment, plus 40 for the SYN
    # (ns-2's one-way TCP sends seqno 0 as a 40-byte SYN when syn_ is
    # true, the default).  Integer division per flow drops the SYN.
    # acked_packets, from the senders' cumulative ACK, is a cross-check:
    # ack_ counts the SYN as seqno 0, so data packets ACKed = ack_.
    set delivered 0
    set acked 0
    foreach sink $sinks tcp $tcps {
        incr delivered [expr {[$sink set bytes_] / ($payload + $hdr)}]
        set a [$tcp set ack_]
        if {$a > 0} { incr acked $a }
    }
    set goodput [expr {$delivered * $payload * 8.0 / $simtime}]
    set drops  [$qmon set pdrops_]
    set edrops [$qmon set epdrops_]
    # Close the integral at the end of the run (its last segment is still open).
    $pint newpoint [$ns now] [$pint set lasty_]
    set meanq [expr {[$pint set sum_] / [$ns now]}]
    puts "simulator=ns2"
    puts "n_flows=$N"
    puts "bottleneck_mbps=$mbps"
    puts "sim_time_s=[$ns now]"
    puts "delivered_packets=$delivered"
    puts "acked_packets=$acked"
    puts [format "goodput_bps=%.0f" $goodput]
    puts "bottleneck_drops=$drops"
    puts "bottleneck_early_drops=$edrops"
    puts "bottleneck_forced_drops=[expr {$drops - $edrops}]"
    puts [format "mean_queue_packets=%.2f" $meanq]
    exit 0
}
$ns at $simtime "finish"
$ns run
