# The DAS paper's Fig. 2 network (SCENARIOS.md P3, scenarios/das_fig2.toml)
# without DAS: S - A - C - R with the backup path A - B - C; every link
# 100 Mb/s, 5 ms, 10000-packet DropTail queues. One TCP NewReno flow S -> R,
# 512-byte segments (552 on the wire), receiver window WND segments. With
# FAIL = 1, link A-C is down from 3 s to 8 s: ns-2's session routing
# recomputes the routes the instant the link goes down or comes up, so the
# traffic moves to A-B-C at once and comes back at 8 s (immediate detection,
# a hold-down longer than the failure); the packets queued on or travelling
# over A-C when it fails are lost, as in ccsim.
#
#   ns das_fig2.tcl WND FAIL SIMTIME SEED
source [file join [file dirname [info script]] lib.tcl]
args_or_usage das_fig2.tcl {wnd fail simtime seed}
seed_default $seed

Agent/TCP set packetSize_ 512
Agent/TCP set window_ $wnd
Queue set limit_ 10000

set ns [new Simulator]
$ns rtproto Session
foreach n {S A B C R} { set node($n) [$ns node] }
foreach {a b} {S A A C A B B C C R} {
    $ns duplex-link $node($a) $node($b) 100Mb 5ms DropTail
}
if {$fail} {
    $ns rtmodel-at 3.0 down $node(A) $node(C)
    $ns rtmodel-at 8.0 up $node(A) $node(C)
}
set conn [bulk_tcp $ns Newreno $node(S) $node(R) 0 0.0]

set before [list [tcp_counters {*}$conn 552]]
proc finish {} {
    global before simtime conn
    puts "duration_s=$simtime"
    print_tcp "" $before [list [tcp_counters {*}$conn 552]] 512 $simtime
    exit 0
}
$ns at $simtime "finish"
$ns run
